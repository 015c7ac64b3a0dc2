//! `flatstream worker` and `flatstream query --workers`: real worker processes on 127.0.0.1,
//! each answer compared with the same query in one process; a killed, stopped or refusing
//! worker left out with the same answer; a bound on every wait; the token; TLS never
//! downgraded.
#![cfg(feature = "cluster")]

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// No wait in these tests is longer than this.
const WAIT: Duration = Duration::from_secs(60);

/// A `flatstream worker` process on 127.0.0.1, killed on drop; its stderr lines kept.
struct Worker {
    child: Mutex<Child>,
    pid: u32,
    url: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Worker {
    /// A worker on a free port, with `args` added (a token, TLS).
    fn start(args: &[&str]) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flatstream"))
            .args(["worker", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let kept = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                kept.lock().unwrap().push(line);
            }
        });
        let mut worker = Worker {
            pid: child.id(),
            child: Mutex::new(child),
            url: String::new(),
            lines,
        };
        let line = worker.wait_for("listening on ");
        let at = line.find("listening on ").unwrap() + "listening on ".len();
        worker.url = line[at..].split(' ').next().unwrap().to_owned();
        worker
    }

    /// The first line of its stderr that contains `part`, waited for up to [`WAIT`].
    fn wait_for(&self, part: &str) -> String {
        let started = Instant::now();
        loop {
            if let Some(line) = self.lines().into_iter().find(|l| l.contains(part)) {
                return line;
            }
            if let Ok(Some(status)) = self.child.lock().unwrap().try_wait() {
                panic!("the worker exited ({status}): {:?}", self.lines());
            }
            assert!(
                started.elapsed() < WAIT,
                "no line with {part:?}: {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn kill(&self) {
        let mut child = self.child.lock().unwrap();
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A stopped process is killed as well: SIGKILL needs no SIGCONT.
        self.kill();
    }
}

/// Three captures framed with other checksums, in a directory, and an aggregate over them whose
/// answer does not depend on how the rows were cut (integers only).
fn aggregate_of_captures() -> (Dir, String) {
    let dir = Dir::new();
    dir.file("a.fstream", &telemetry(3000, ChecksumKind::XxHash64));
    dir.file("b.fstream", &telemetry(2000, ChecksumKind::Crc32c));
    dir.file("c.fstream", &telemetry(1000, ChecksumKind::Crc16));
    let sql = format!(
        "SELECT device_id, count(*) AS n, sum(timestamp) AS s, min(timestamp) AS lo, \
         max(timestamp) AS hi FROM '{}' GROUP BY device_id ORDER BY device_id",
        dir.path("*.fstream")
    );
    (dir, sql)
}

/// `n` workers, each started with `args`.
fn start(n: usize, args: &[&str]) -> Vec<Worker> {
    (0..n).map(|_| Worker::start(args)).collect()
}

/// `flatstream query` of `sql` in one process, as CSV.
fn one_process(sql: &str) -> String {
    let out = run(&["query", "-s", &telemetry_bfbs(), "--format", "csv", sql]);
    out.ok();
    assert_eq!(out.stdout.lines().count(), 65, "{}", out.stdout);
    out.stdout.clone()
}

/// `flatstream query --workers URLS ARGS SQL`, as CSV.
fn on_workers<'w>(workers: impl IntoIterator<Item = &'w Worker>, args: &[&str], sql: &str) -> Out {
    let urls: Vec<&str> = workers.into_iter().map(|w| w.url.as_str()).collect();
    on_urls(&urls.join(","), args, sql)
}

/// [`on_workers`] with the URLs written out (`urls`, comma-separated).
fn on_urls(urls: &str, args: &[&str], sql: &str) -> Out {
    let schema = telemetry_bfbs();
    let mut all = vec!["query", "-s", &schema, "--format", "csv", "--workers", urls];
    all.extend(args);
    all.push(sql);
    run(&all)
}

/// [`on_workers`], and how long it took.
fn on_workers_timed<'w>(
    workers: impl IntoIterator<Item = &'w Worker>,
    args: &[&str],
    sql: &str,
) -> (Out, Duration) {
    let started = Instant::now();
    let out = on_workers(workers, args, sql);
    (out, started.elapsed())
}

#[test]
fn three_workers_answer_as_one_process_whatever_the_cuts() {
    let (_dir, sql) = aggregate_of_captures();
    let expected = one_process(&sql);
    let workers = start(3, &[]);
    for cut in ["4096", "10000", "65536"] {
        let out = on_workers(&workers, &["--bytes-per-partition", cut], &sql);
        out.ok();
        assert_eq!(out.stdout, expected, "cut {cut}");
    }
    // Each worker ran tasks, and said which: query, stage, task, byte ranges, rows.
    for worker in &workers {
        let line = worker.wait_for(" task ");
        assert_contains(&line, "flatstream worker: query ");
        assert_contains(&line, " stage ");
        assert!(
            line.contains(" rows in ") || line.contains("failed"),
            "{line}"
        );
    }
    let ranges: Vec<String> = workers
        .iter()
        .flat_map(|w| w.lines())
        .filter(|l| l.contains(".fstream:"))
        .collect();
    assert!(!ranges.is_empty(), "no task named its byte ranges");
}

#[test]
fn explain_shows_stages_tasks_workers_and_byte_ranges() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(2, &[]);
    let out = on_workers(
        &workers,
        &["--bytes-per-partition", "8192", "--explain"],
        &sql,
    );
    out.ok();
    assert_contains(&out.stdout, "Stage 1");
    assert_contains(&out.stdout, "tasks:");
    for worker in &workers {
        assert_contains(&out.stdout, &format!("on {}/", worker.url));
    }
    assert_contains(&out.stdout, "a.fstream:0..");
    // Explaining runs nothing.
    std::thread::sleep(Duration::from_millis(200));
    for worker in &workers {
        assert!(
            !worker.lines().iter().any(|l| l.contains(" task ")),
            "{:?}",
            worker.lines()
        );
    }
}

#[test]
fn one_worker_runs_the_tasks_and_a_plan_too_small_to_cut_is_said() {
    let (_dir, sql) = aggregate_of_captures();
    let expected = one_process(&sql);
    let worker = Worker::start(&[]);
    // One worker: the stages still run on it, two tasks each.
    let out = on_workers([&worker], &["--bytes-per-partition", "8192"], &sql);
    assert_eq!(out.ok().stdout, expected);
    worker.wait_for(" task 1/2");

    // Files smaller than a partition: one task per stage, on the coordinator alone; said.
    let out = on_workers([&worker], &[], &sql);
    out.exits(0);
    assert_eq!(out.stdout, expected);
    assert_eq!(
        out.stderr,
        "flatstream: note: the plan runs on the coordinator alone, not on the workers: no \
         stage has more than one task (its scans are too small to cut: see \
         --bytes-per-partition)\n"
    );
    let line = on_workers([&worker], &["--require-workers"], &sql).one_line_error(2);
    assert_contains(&line, "--require-workers refuses it");
    let out = on_workers([&worker], &["--explain"], &sql);
    assert_contains(&out.ok().stdout, "runs on the coordinator alone");
}

/// Runs `sql` with `args` on `workers`, of which the one at `lost` fails: the answer is the one
/// process's, a note names that worker, and the query runs again on the others. How long it
/// took.
fn answer_without(workers: &[Worker], lost: usize, args: &[&str], sql: &str) -> Duration {
    let expected = one_process(sql);
    let (out, took) = on_workers_timed(workers, args, sql);
    out.exits(0);
    assert_eq!(out.stdout, expected);
    let note = format!("flatstream: note: worker {}/: ", workers[lost].url);
    assert_contains(&out.stderr, &note);
    let again = format!(
        "running the query again on the {} workers that remain",
        workers.len() - 1
    );
    assert_contains(&out.stderr, &again);
    took
}

#[test]
fn a_killed_worker_is_left_out_and_the_answer_is_the_same() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(3, &[]);
    // Mid-query: the worker stops first (the query waits on it), then dies.
    workers[1].signal("-STOP");
    let victim = workers[1].pid;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        let _ = Command::new("kill")
            .args(["-KILL", &victim.to_string()])
            .status();
    });
    let took = answer_without(&workers, 1, &["--bytes-per-partition", "8192"], &sql);
    killer.join().unwrap();
    assert!(took < WAIT, "{took:?}");
}

#[test]
fn a_stopped_worker_is_given_up_within_the_keepalive_bound() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(3, &[]);
    workers[2].signal("-STOP");
    let args = ["--bytes-per-partition", "8192", "--keepalive", "1"];
    let took = answer_without(&workers, 2, &args, &sql);
    // Two keepalive periods to give it up, then the attempt on the others.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_task_past_its_deadline_fails_its_worker_and_the_query_is_bounded() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(2, &[]);
    workers.iter().for_each(|w| w.signal("-STOP"));
    // Keepalive long: the task deadline gives them up, or --timeout ends the whole query.
    for (bound, said) in [
        (["--task-timeout", "1"], "task timeout of 1 s"),
        (["--timeout", "1"], "did not finish within --timeout 1 s"),
    ] {
        let mut args = vec!["-q", "--bytes-per-partition", "8192", "--keepalive", "100"];
        args.extend(bound);
        let (out, took) = on_workers_timed(&workers, &args, &sql);
        let line = out.one_line_error(2);
        assert_contains(&line, said);
        if bound[0] == "--task-timeout" {
            assert_contains(&line, "no worker remains: ");
            for worker in &workers {
                assert_contains(&line, &format!("worker {}/: ", worker.url));
            }
        }
        assert!(took < Duration::from_secs(20), "{took:?}");
    }
}

#[test]
fn all_workers_gone_is_one_line_naming_each() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(2, &[]);
    workers.iter().for_each(Worker::kill);
    // -q: the notes of each worker left out are not printed, only the error.
    let (out, took) = on_workers_timed(&workers, &["-q", "--bytes-per-partition", "8192"], &sql);
    let line = out.one_line_error(2);
    assert_contains(&line, "no worker remains: ");
    for worker in &workers {
        assert_contains(
            &line,
            &format!("worker {}/: connection refused", worker.url),
        );
    }
    assert!(!line.contains("h2") && !line.contains("hyper"), "{line}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_damaged_frame_read_on_a_worker_exits_1_as_in_one_process() {
    // Damage is the data's, not the worker's: exit status 1 and the same words as one process,
    // and no worker is left out for it.
    let capture = Capture::new(3000, ChecksumKind::XxHash64);
    let damaged = flipped(&capture.bytes, capture.at[1500] + 20, 0x40);
    let path = capture.dir.file("damaged.fstream", &damaged);
    let sql = format!("SELECT count(*) FROM '{path}'");
    let schema = telemetry_bfbs();
    let alone = run(&["query", "-s", &schema, &sql]).one_line_error(1);
    assert_contains(&alone, "checksum mismatch");
    let workers = start(2, &[]);
    let out = on_workers(&workers, &["--bytes-per-partition", "16384"], &sql);
    let line = out.one_line_error(1);
    assert_contains(&line, alone.trim_start_matches("flatstream: "));
    assert!(!line.contains("no worker remains"), "{line}");
}

#[test]
fn attempts_run_out_before_workers_do() {
    let (_dir, sql) = aggregate_of_captures();
    let workers = start(3, &[]);
    workers[0].kill();
    let line = on_workers(
        &workers,
        &["--bytes-per-partition", "8192", "--max-attempts", "1"],
        &sql,
    )
    .one_line_error(2);
    assert_contains(&line, "the query failed on 1 attempt (--max-attempts 1): ");
    assert_contains(
        &line,
        &format!("worker {}/: connection refused", workers[0].url),
    );
}

/// Property: whatever the cut into byte ranges and whichever one worker is gone, the rows are
/// those of one process.
#[test]
fn any_cut_and_any_single_failure_give_the_rows_of_one_process() {
    let (_dir, sql) = aggregate_of_captures();
    let expected = one_process(&sql);
    for (cut, victim) in [("3000", 0), ("8192", 1), ("20000", 2), ("65536", 0)] {
        let workers = start(3, &[]);
        workers[victim].kill();
        let out = on_workers(&workers, &["--bytes-per-partition", cut], &sql);
        out.exits(0);
        assert_eq!(out.stdout, expected, "cut {cut}, worker {victim} gone");
    }
}

#[test]
fn a_worker_without_the_token_runs_nothing() {
    let (dir, sql) = aggregate_of_captures();
    let expected = one_process(&sql);
    let token = dir.file("token", b"s3cret-token\n");
    let wrong = dir.file("wrong", b"not-the-token\n");
    let workers = start(2, &["--token-file", &token]);
    assert_contains(&workers[0].wait_for("listening"), "token required");

    for given in [vec!["--token-file", wrong.as_str()], vec![]] {
        let mut args = vec!["-q", "--bytes-per-partition", "8192"];
        args.extend(given.iter().copied());
        let line = on_workers(&workers, &args, &sql).one_line_error(2);
        assert_contains(&line, "no worker remains: ");
        assert_contains(&line, "refused the request");
    }
    assert_contains(
        &workers[0].wait_for("refused"),
        "wrong cluster token; nothing run",
    );
    assert_contains(
        &workers[1].wait_for("missing"),
        "missing cluster token; nothing run",
    );
    for worker in &workers {
        assert!(
            !worker.lines().iter().any(|l| l.contains(" task ")),
            "{:?}",
            worker.lines()
        );
    }

    // The token in a file, or in the environment.
    let out = on_workers(
        &workers,
        &["--bytes-per-partition", "8192", "--token-file", &token],
        &sql,
    );
    assert_eq!(out.ok().stdout, expected);
    let urls = format!("{},{}", workers[0].url, workers[1].url);
    let schema = telemetry_bfbs();
    let out = run_with(
        &[
            "query",
            "-s",
            &schema,
            "--format",
            "csv",
            "--bytes-per-partition",
            "8192",
            &sql,
        ],
        None,
        &[
            ("FLATSTREAM_WORKERS", &urls),
            ("FLATSTREAM_CLUSTER_TOKEN", "s3cret-token"),
        ],
    );
    assert_eq!(out.ok().stdout, expected);
    workers[0].wait_for(" task ");
}

/// A certificate authority, and a certificate it signed for 127.0.0.1 and localhost: the
/// paths of ca.pem, cert.pem, key.pem.
fn certificates(dir: &Dir) -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "flatstream test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "flatstream worker");
    let cert = params.signed_by(&key, &issuer).unwrap();
    (
        dir.file("ca.pem", ca.pem().as_bytes()),
        dir.file("cert.pem", cert.pem().as_bytes()),
        dir.file("key.pem", key.serialize_pem().as_bytes()),
    )
}

#[test]
fn tls_round_trips_and_is_never_downgraded() {
    let (dir, sql) = aggregate_of_captures();
    let expected = one_process(&sql);
    let (ca, cert, key) = certificates(&dir);
    let workers = start(
        2,
        &["--tls-cert", &cert, "--tls-key", &key, "--tls-ca", &ca],
    );
    for worker in &workers {
        assert!(
            worker.url.starts_with("https://127.0.0.1:"),
            "{}",
            worker.url
        );
    }
    let out = on_workers(
        &workers,
        &["--bytes-per-partition", "8192", "--tls-ca", &ca],
        &sql,
    );
    assert_eq!(out.ok().stdout, expected);

    // https:// without TLS configured: refused before anything is sent.
    let line = on_workers(&workers, &[], &sql).one_line_error(2);
    assert_contains(&line, "https:// needs TLS");
    // Plaintext to a TLS worker: an error, never a plaintext query.
    let plain: Vec<String> = workers
        .iter()
        .map(|w| w.url.replace("https://", "http://"))
        .collect();
    let cut = ["-q", "--bytes-per-partition", "8192"];
    let line = on_urls(&plain.join(","), &cut, &sql).one_line_error(2);
    assert_contains(&line, "no worker remains: ");
    // TLS configured, http:// given: refused.
    let line = on_urls(&plain.join(","), &["--tls-ca", &ca], &sql).one_line_error(2);
    assert_contains(&line, "must be https://");

    // TLS to a plaintext worker: the handshake fails; no downgrade.
    let plaintext = Worker::start(&[]);
    let other = Worker::start(&[]);
    let tls_urls = format!(
        "{},{}",
        plaintext.url.replace("http://", "https://"),
        other.url.replace("http://", "https://")
    );
    let line = on_urls(&tls_urls, &[&cut[..], &["--tls-ca", &ca]].concat(), &sql).one_line_error(2);
    assert_contains(&line, "no worker remains: ");
    assert_contains(&line, "TLS handshake failed");
    assert!(!plaintext.lines().iter().any(|l| l.contains(" task ")));
}

#[test]
fn a_port_in_use_and_a_url_without_a_scheme_are_clear_errors() {
    let worker = Worker::start(&[]);
    let addr = worker.url.trim_start_matches("http://").to_owned();
    let line = run(&["worker", "--listen", &addr]).one_line_error(2);
    assert_eq!(
        line,
        format!("flatstream: cannot listen on {addr}: address already in use")
    );
    let schema = telemetry_bfbs();
    let line = run(&["query", "-s", &schema, "--workers", &addr, "SELECT 1"]).one_line_error(2);
    assert_eq!(
        line,
        format!(
            "flatstream: worker URL `{addr}`: no scheme: write http://{addr} (or https://{addr} \
             with TLS)"
        )
    );
}
