//! Which worker failed, and why: a call's failure of the transport named with its worker
//! ([`WorkerFailure`]), in words a user can act on, and the failures found again in a query's
//! error ([`failed_workers`]), so that the query can be run on the workers that remain.
//!
//! An error the worker reports about the data (a damaged frame) is not a failure of the
//! worker: only a `tonic::Status` that no worker encoded, a transport error, or a text that
//! says one, is.

use std::fmt;

use datafusion::common::DataFusionError;
use url::Url;

/// A worker that failed a query for want of the worker itself: it refused the connection, lost
/// it, stopped answering, missed a deadline, or refused the TLS handshake or the token. (An
/// error the worker reports about the data, such as a damaged frame, is not one.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerFailure {
    /// The worker.
    pub url: Url,
    /// Why, in words.
    pub reason: String,
}

impl fmt::Display for WorkerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "worker {}: {}", self.url, self.reason)
    }
}

impl std::error::Error for WorkerFailure {}

/// `e`, as a [`WorkerFailure`] of `url` if it is a failure of the transport; else unchanged.
pub(crate) fn name_worker(url: &Url, e: DataFusionError) -> DataFusionError {
    if contains_failure(&e) {
        return e;
    }
    match transport_reason(&e) {
        Some(reason) => DataFusionError::External(Box::new(WorkerFailure {
            url: url.clone(),
            reason,
        })),
        None => e,
    }
}

fn contains_failure(e: &DataFusionError) -> bool {
    let mut found = false;
    visit(e, &mut |inner| {
        found |= inner.downcast_ref::<WorkerFailure>().is_some();
    });
    found
}

/// Calls `f` on every boxed error inside `e` (through contexts, shared errors, collections).
fn visit(e: &DataFusionError, f: &mut dyn FnMut(&(dyn std::error::Error + Send + Sync + 'static))) {
    match e {
        DataFusionError::External(inner) => f(inner.as_ref()),
        DataFusionError::Context(_, inner) => visit(inner, f),
        DataFusionError::Shared(inner) => visit(inner, f),
        DataFusionError::Diagnostic(_, inner) => visit(inner, f),
        DataFusionError::Collection(all) => all.iter().for_each(|e| visit(e, f)),
        DataFusionError::ArrowError(arrow, _) => {
            if let datafusion::arrow::error::ArrowError::ExternalError(inner) = arrow.as_ref() {
                // arrow's external errors are `Box<dyn Error + Send + Sync>` too.
                f(inner.as_ref());
            }
        }
        _ => {}
    }
}

/// Why a call failed, if the failure is the transport's: a `tonic::Status` that is not an
/// error the worker encoded (those decode to DataFusion's own errors).
fn transport_reason(e: &DataFusionError) -> Option<String> {
    let mut reason = None;
    visit(e, &mut |inner| {
        if reason.is_some() {
            return;
        }
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(inner);
        while let Some(error) = source {
            if let Some(status) = error.downcast_ref::<tonic::Status>() {
                reason = Some(reason_of_status(status));
                return;
            }
            if error.downcast_ref::<tonic::transport::Error>().is_some() {
                reason = Some(reason_of_text(&chain(error)));
                return;
            }
            source = error.source();
        }
        // arrow-flight's errors wrap a status in their own type; their text says so.
        let text = chain(inner);
        if is_transport_text(&text) {
            reason = Some(reason_of_text(&text));
        }
    });
    reason
}

/// An error and its sources, as one text.
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = inner.source();
    }
    text
}

fn reason_of_status(status: &tonic::Status) -> String {
    match status.code() {
        tonic::Code::Unauthenticated => {
            format!("refused the request: {}", status.message())
        }
        tonic::Code::DeadlineExceeded => "the request's deadline passed".to_owned(),
        _ => reason_of_text(&chain(status)),
    }
}

fn is_transport_text(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "transport error",
        "h2 protocol error",
        "tcp connect error",
        "error trying to connect",
        "connection refused",
        "connection reset",
        "broken pipe",
        "keep-alive timed out",
        "error reading a body",
        "status: unavailable",
        "status: unknown",
        "status: cancelled",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// A transport failure in words, without hyper's or h2's Debug text.
pub(crate) fn reason_of_text(text: &str) -> String {
    let lower = text.to_lowercase();
    let has = |p: &str| lower.contains(p);
    if has("connection refused") {
        "connection refused (is the worker running, on that port?)".to_owned()
    } else if has("keep-alive") || has("keepalive") {
        "stopped answering (no reply to HTTP/2 keepalive pings)".to_owned()
    } else if has("certificate") || has("tls") || has("handshake") || has("invalidcontenttype") {
        "the TLS handshake failed (is the worker serving TLS, with a certificate from --tls-ca \
         for this host?)"
            .to_owned()
    } else if has("timed out") || has("deadline") {
        "connecting timed out".to_owned()
    } else if has("dns") || has("failed to lookup") || has("name or service not known") {
        "its host name does not resolve".to_owned()
    } else if has("error reading a body")
        || has("connection reset")
        || has("broken pipe")
        || has("connection closed")
        || has("stream closed")
        || has("unexpected end of file")
        || has("unexpected eof")
        || has("not connected")
        || has("operation was canceled")
    {
        "the connection was lost (the worker exited or was killed?)".to_owned()
    } else {
        let first = text.lines().next().unwrap_or("").trim();
        format!("the connection failed: {first}")
    }
}

/// The workers among `workers` that `e` says failed, each once (with the first reason given),
/// in the order of `workers`. A worker's failure met by another worker (in a shuffle) reaches
/// the coordinator as that worker's error text: it is found by the text `worker URL: `.
pub fn failed_workers(e: &DataFusionError, workers: &[Url]) -> Vec<WorkerFailure> {
    let mut found: Vec<WorkerFailure> = Vec::new();
    visit(e, &mut |inner| {
        if let Some(failure) = inner.downcast_ref::<WorkerFailure>() {
            found.push(failure.clone());
        }
    });
    let text = e.to_string();
    for url in workers {
        let marker = format!("worker {url}: ");
        if let Some(at) = text.find(&marker) {
            let rest = &text[at + marker.len()..];
            let end = rest.find(['\n', ';']).unwrap_or(rest.len());
            found.push(WorkerFailure {
                url: url.clone(),
                reason: rest[..end].trim().to_owned(),
            });
        }
    }
    let mut unique: Vec<WorkerFailure> = Vec::new();
    for url in workers {
        if let Some(failure) = found.iter().find(|f| &f.url == url) {
            unique.push(failure.clone());
        }
    }
    unique
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The URLs of two workers, `a` and `b`, as the cluster's tests name them.
    pub(in crate::distributed) fn two_workers() -> Vec<Url> {
        ["http://a:1", "http://b:1"]
            .iter()
            .map(|u| Url::parse(u).unwrap())
            .collect()
    }

    #[test]
    fn failures_are_found_in_errors_and_in_their_text() {
        let urls = two_workers();
        let direct = DataFusionError::Context(
            "reading".to_owned(),
            Box::new(DataFusionError::External(Box::new(WorkerFailure {
                url: urls[1].clone(),
                reason: "connection refused".to_owned(),
            }))),
        );
        assert_eq!(
            failed_workers(&direct, &urls),
            [WorkerFailure {
                url: urls[1].clone(),
                reason: "connection refused".to_owned()
            }]
        );
        // As another worker reports it: text only.
        let relayed = DataFusionError::Execution(
            "External error: worker http://a:1/: the connection was lost".to_owned(),
        );
        let found = failed_workers(&relayed, &urls);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].url, urls[0]);
        assert_eq!(found[0].reason, "the connection was lost");
        // A damaged frame names no worker.
        let data = DataFusionError::Execution("a.fstream: frame 3 at byte 120".to_owned());
        assert!(failed_workers(&data, &urls).is_empty());
    }

    #[test]
    fn transport_errors_are_worded_without_debug_text() {
        let status = tonic::Status::unavailable(
            "error trying to connect: tcp connect error: Connection refused (os error 111)",
        );
        let e = name_worker(
            &Url::parse("http://a:1").unwrap(),
            DataFusionError::External(Box::new(status)),
        );
        assert_eq!(
            e.to_string(),
            "External error: worker http://a:1/: connection refused (is the worker running, \
             on that port?)"
        );
        let lost = reason_of_text("h2 protocol error: error reading a body from connection");
        assert!(lost.starts_with("the connection was lost"), "{lost}");
        // An error the worker encoded is left as it is.
        let data = DataFusionError::Execution("frame 3 is damaged".to_owned());
        let url = Url::parse("http://a:1").unwrap();
        assert_eq!(
            name_worker(&url, data).to_string(),
            "Execution error: frame 3 is damaged"
        );
    }
}
