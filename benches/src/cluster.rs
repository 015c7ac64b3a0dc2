//! The cluster workload (feature `cluster`): [`capture`]'s aggregate run by the
//! `flatstream` binary users install, in one process and on `flatstream worker` processes on
//! 127.0.0.1.
//!
//! The binary is the one `FLATSTREAM_BIN` names (`cargo xtask bench-report --only cluster`
//! builds the CLI as `cargo install` does and sets it). Every side runs the same command line
//! but for its cluster options, and prints the answer as CSV, which is checked against the rows:
//!
//! ```text
//! flatstream query -q -s examples/telemetry.bfbs --format csv [CLUSTER OPTIONS] \
//!     "SELECT device_id, count(*), avg(value) FROM '<capture>' GROUP BY device_id ORDER BY device_id"
//! ```
//!
//! | side | workers started with | query's cluster options |
//! |---|---|---|
//! | `one-process` | (none) | (none) |
//! | `two-workers` | (nothing) | `--workers A,B --require-workers` |
//! | `two-workers-token` | `--token-file F` | the same and `--token-file F` |
//! | `two-workers-tls` | `--tls-cert`, `--tls-key`, `--tls-ca` | `https://` URLs and `--tls-ca` |
//! | `two-workers-one-killed` | (nothing) | `--workers A,B`; B gets SIGKILL halfway through the query |

use crate::capture::{self, expected, matches};
use crate::paths::out_dir;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The schema of the capture's frames.
const BFBS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/telemetry.bfbs");

/// How long a worker may take to say where it listens.
const START: Duration = Duration::from_secs(30);

/// The sides, as the benchmark ids name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `flatstream query` alone.
    OneProcess,
    /// Two workers, plaintext, no token.
    TwoWorkers,
    /// Two workers that require the shared token.
    Token,
    /// Two workers behind TLS.
    Tls,
    /// Two workers, one killed halfway through the query.
    OneKilled,
}

impl Side {
    /// Every side, in the order of the report.
    pub const ALL: [Side; 5] = [
        Side::OneProcess,
        Side::TwoWorkers,
        Side::Token,
        Side::Tls,
        Side::OneKilled,
    ];

    /// The name in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Side::OneProcess => "one-process",
            Side::TwoWorkers => "two-workers",
            Side::Token => "two-workers-token",
            Side::Tls => "two-workers-tls",
            Side::OneKilled => "two-workers-one-killed",
        }
    }
}

/// A `flatstream worker` process on a free port of 127.0.0.1, killed on drop.
#[derive(Debug)]
pub struct Worker {
    child: Child,
    /// Where it listens (`http://127.0.0.1:PORT`, `https://…` with TLS).
    pub url: String,
}

impl Worker {
    /// Starts the worker with `args` added, and waits until it listens.
    fn start(bin: &Path, args: &[String]) -> io::Result<Worker> {
        let mut child = Command::new(bin)
            .args(["worker", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        // Its stderr is read to the end (a line per task), so that it never blocks on a pipe.
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let started = Instant::now();
        let mut worker = Worker {
            child,
            url: String::new(),
        };
        while let Some(left) = START.checked_sub(started.elapsed()) {
            let Ok(line) = rx.recv_timeout(left) else {
                break;
            };
            if let Some((_, rest)) = line.split_once("listening on ") {
                worker.url = rest.split(' ').next().unwrap_or_default().to_owned();
                return Ok(worker);
            }
        }
        Err(io::Error::other("the worker did not say where it listens"))
    }

    /// Kills the process (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The capture, the binary and the files of the token and TLS sides.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    /// Rows of the capture.
    pub rows: u64,
    capture: PathBuf,
    token: PathBuf,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    /// Options added to every query on workers (a smaller cut in test mode).
    extra: Vec<String>,
}

impl Cluster {
    /// The capture of `rows` rows (written unless it is there), the binary `FLATSTREAM_BIN`
    /// names, a token and a certificate authority with a certificate for 127.0.0.1. `extra`
    /// is added to every query on workers.
    pub fn prepare(rows: u64, extra: &[&str]) -> io::Result<Cluster> {
        let bin = std::env::var_os("FLATSTREAM_BIN")
            .map(PathBuf::from)
            .ok_or_else(|| {
                io::Error::other(
                    "FLATSTREAM_BIN is not set: it names the `flatstream` binary to measure, built \
                 with its default features (`cargo xtask bench-report --only cluster` builds \
                 one as `cargo install` does)",
                )
            })?;
        let capture = capture::flatstream_file(rows)?;
        let dir = out_dir().join("cluster");
        std::fs::create_dir_all(&dir)?;
        let token = dir.join("token");
        std::fs::write(&token, "flatstream-bench-token\n")?;
        let (ca, cert, key) = certificates()?;
        let path = |name: &str, text: String| -> io::Result<PathBuf> {
            let p = dir.join(name);
            std::fs::write(&p, text)?;
            Ok(p)
        };
        Ok(Cluster {
            bin,
            rows,
            capture: capture.clone(),
            token,
            ca: path("ca.pem", ca)?,
            cert: path("cert.pem", cert)?,
            key: path("key.pem", key)?,
            extra: extra.iter().map(|&a| a.to_owned()).collect(),
        })
    }

    /// Bytes of the capture.
    pub fn bytes(&self) -> u64 {
        capture::len(&self.capture).unwrap_or(0)
    }

    /// The SQL every side runs.
    pub fn sql(&self) -> String {
        format!(
            "SELECT device_id, count(*), avg(value) FROM '{}' GROUP BY device_id ORDER BY \
             device_id",
            self.capture.display()
        )
    }

    /// The options a worker of `side` is started with.
    fn worker_args(&self, side: Side) -> Vec<String> {
        let path = |p: &PathBuf| p.display().to_string();
        match side {
            Side::Token => vec!["--token-file".into(), path(&self.token)],
            Side::Tls => vec![
                "--tls-cert".into(),
                path(&self.cert),
                "--tls-key".into(),
                path(&self.key),
                "--tls-ca".into(),
                path(&self.ca),
            ],
            _ => Vec::new(),
        }
    }

    /// The two workers of `side` (none for one process).
    pub fn workers(&self, side: Side) -> io::Result<Vec<Worker>> {
        let n = if side == Side::OneProcess { 0 } else { 2 };
        (0..n)
            .map(|_| Worker::start(&self.bin, &self.worker_args(side)))
            .collect()
    }

    /// The query of `side` on `workers`, not yet started.
    pub fn command(&self, side: Side, workers: &[Worker]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(["query", "-q", "-s", BFBS, "--format", "csv"]);
        if !workers.is_empty() {
            let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
            c.args(["--workers", &urls.join(",")]).args(&self.extra);
        }
        match side {
            Side::OneProcess => {}
            // After the kill one worker remains, on which the query does not distribute.
            Side::OneKilled => {}
            Side::TwoWorkers => {
                c.arg("--require-workers");
            }
            Side::Token => {
                c.arg("--require-workers")
                    .arg("--token-file")
                    .arg(&self.token);
            }
            Side::Tls => {
                c.arg("--require-workers").arg("--tls-ca").arg(&self.ca);
            }
        }
        c.arg(self.sql());
        c.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Runs the query of `side` on `workers`; an error unless it exits 0 with the answer.
    pub fn run(&self, side: Side, workers: &[Worker]) -> io::Result<()> {
        let out = self.command(side, workers).output()?;
        self.check(side, &out)
    }

    /// Runs the query of `side` on `workers` and kills `workers[1]` after `half`; how long
    /// the query took to exit with the answer.
    pub fn run_killing(&self, workers: &mut [Worker], half: Duration) -> io::Result<Duration> {
        let started = Instant::now();
        let mut child = self.command(Side::OneKilled, workers).spawn()?;
        std::thread::sleep(half);
        if child.try_wait()?.is_some() {
            let out = child.wait_with_output()?;
            return Err(io::Error::other(format!(
                "the query ended within {half:?}, before the worker was killed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        workers[1].kill();
        let out = child.wait_with_output()?;
        let took = started.elapsed();
        self.check(Side::OneKilled, &out)?;
        Ok(took)
    }

    /// Whether `out` is a successful query with the answer for the capture.
    fn check(&self, side: Side, out: &Output) -> io::Result<()> {
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "{}: the query failed ({}): {}",
                side.name(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let got = parse_csv(&stdout)?;
        if !matches(&got, &expected(self.rows)) {
            return Err(io::Error::other(format!("{}: a wrong answer", side.name())));
        }
        Ok(())
    }
}

/// The rows of the query's CSV: device, count, average, after the header line.
pub fn parse_csv(text: &str) -> io::Result<Vec<(u64, i64, f64)>> {
    let bad = |line: &str| io::Error::other(format!("not a row of the answer: {line:?}"));
    text.lines()
        .skip(1)
        .map(|line| {
            let mut cells = line.split(',');
            let mut cell = || cells.next().ok_or_else(|| bad(line));
            let device = cell()?.parse().map_err(|_| bad(line))?;
            let count = cell()?.parse().map_err(|_| bad(line))?;
            let avg = cell()?.parse().map_err(|_| bad(line))?;
            Ok((device, count, avg))
        })
        .collect()
}

/// A certificate authority and a certificate it signed for 127.0.0.1 and localhost, as PEM:
/// the authority's certificate, the certificate, its key.
fn certificates() -> io::Result<(String, String, String)> {
    let err = |e: rcgen::Error| io::Error::other(e.to_string());
    let ca_key = rcgen::KeyPair::generate().map_err(err)?;
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "flatstream bench CA");
    let ca = ca_params.self_signed(&ca_key).map_err(err)?;
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().map_err(err)?;
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .map_err(err)?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "flatstream bench worker");
    let cert = params.signed_by(&key, &issuer).map_err(err)?;
    Ok((ca.pem(), cert.pem(), key.serialize_pem()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_answer_is_read_row_by_row_and_a_bad_row_is_an_error() {
        let rows = parse_csv("device_id,count(*),avg(value)\n1,3,2.5\n2,1,0.125\n").unwrap();
        assert_eq!(rows, vec![(1, 3, 2.5), (2, 1, 0.125)]);
        assert!(parse_csv("h\n1,x,2.5\n").is_err());
        assert!(parse_csv("h\n1,3\n").is_err());
    }
}
