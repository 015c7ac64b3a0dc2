//! The cluster section: the `cluster` suite's sides, each as a ratio to the same query in one
//! process, the token's and TLS's cost against plain workers, and the goal for two workers. Its
//! ids are optional: a snapshot without them renders as "not measured yet".

use crate::format::{frames_and_bytes, ratio, time};
use crate::snapshot::Snapshot;
use std::fmt::Write;

/// The criterion group of `benches/benches/cluster.rs`.
const GROUP: &str = "cluster";
/// Two local workers take at most this many times one process's time (issue 31).
const GOAL: f64 = 1.3;
/// The sides after one process, in the table's order: the function and what it runs.
const SIDES: [(&str, &str); 4] = [
    ("two-workers", "2 workers"),
    ("two-workers-token", "2 workers, token required"),
    ("two-workers-tls", "2 workers, TLS"),
    (
        "two-workers-one-killed",
        "2 workers, one killed halfway (to the answer from the other)",
    ),
];

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    let _ = write!(
        s,
        "## SQL on a cluster\n\n\
         `flatstream query` (the binary `cargo install --locked --path crates/flatstream-cli` \
         builds) over the SQL suite's flatstream capture, `SELECT device_id, count(*), \
         avg(value) … GROUP BY device_id ORDER BY device_id`, in one process and on \
         `flatstream worker` processes on 127.0.0.1 (`--workers A,B`, the default cut of the \
         capture into byte ranges). Each time is a whole command, from its start to its exit \
         with the answer, which is checked against the rows. Workers are started before timing; \
         on the killed side, before each run, and one of the two gets SIGKILL after half of the \
         time the plain two-worker query takes: its time runs to the exact answer from the \
         other. The coordinator and both workers share this machine's {} cores, so the cluster \
         cannot be faster than one process here: the goal is an overhead of at most {GOAL}× for \
         two workers. The token and TLS columns are each side against plain workers.\n\n",
        snap.cores
    );
    let one = snap
        .benches
        .iter()
        .find(|b| b.group == GROUP && b.function == "one-process");
    let Some(one) = one else {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids (`cargo xtask bench-report \
             --only cluster` measures them).\n"
        );
        return;
    };
    let plain = snap.find(GROUP, "two-workers", &one.parameter);
    let _ = writeln!(s, "Capture: {}.\n", frames_and_bytes(one));
    s.push_str(
        "| side | time | against one process | goal | goal met | against plain workers |\n\
         |---|--:|--:|--:|---|--:|\n",
    );
    let _ = writeln!(s, "| one process | {} | 1.00× | – | – | – |", time(one.ns));
    for (function, what) in SIDES {
        let Some(b) = snap.find(GROUP, function, &one.parameter) else {
            continue;
        };
        let r = b.ns / one.ns;
        let (goal, met) = if function == "two-workers" {
            let met = if r <= GOAL { "yes" } else { "**no**" };
            (format!("≤ {GOAL}×"), met)
        } else {
            ("–".to_owned(), "–")
        };
        let against_plain = match plain {
            Some(p) if function != "two-workers" => format!("{}×", ratio(b.ns / p.ns)),
            _ => "–".to_owned(),
        };
        let _ = writeln!(
            s,
            "| {what} | {} | {}× | {goal} | {met} | {against_plain} |",
            time(b.ns),
            ratio(r),
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::{Bench, Throughput};

    fn with(snap: &mut Snapshot, function: &str, ns: f64) {
        snap.benches.push(Bench {
            id: format!("{GROUP}/{function}/17000000"),
            group: GROUP.to_owned(),
            function: function.to_owned(),
            parameter: "17000000".to_owned(),
            ns,
            ns_lower: ns,
            ns_upper: ns,
            throughput: Some(Throughput::Bytes(1_020_000_000)),
        });
    }

    fn rendered(snap: &Snapshot) -> String {
        let mut s = String::new();
        section(&mut s, snap);
        s
    }

    fn row<'a>(s: &'a str, side: &str) -> &'a str {
        s.lines()
            .find(|l| l.starts_with(&format!("| {side} |")))
            .unwrap_or_else(|| panic!("no row for {side} in {s}"))
    }

    #[test]
    fn without_the_suite_the_section_says_how_to_measure_it() {
        let s = rendered(&sample());
        assert!(s.contains("Not measured yet"), "{s}");
        assert!(s.contains("--only cluster"), "{s}");
        assert!(!s.contains("| side |"), "{s}");
    }

    #[test]
    fn each_side_is_a_ratio_to_one_process_and_the_goal_is_judged_for_two_workers() {
        let mut snap = sample();
        with(&mut snap, "one-process", 2.0e9);
        with(&mut snap, "two-workers", 2.4e9);
        with(&mut snap, "two-workers-token", 2.52e9);
        with(&mut snap, "two-workers-tls", 3.0e9);
        with(&mut snap, "two-workers-one-killed", 6.0e9);
        let s = rendered(&snap);
        assert!(s.contains("Capture: 17 000 000 frames, 1.02 GB."), "{s}");
        assert!(s.contains("this machine's 2 cores"), "{s}");
        assert_eq!(
            row(&s, "one process"),
            "| one process | 2.00 s | 1.00× | – | – | – |"
        );
        assert_eq!(
            row(&s, "2 workers"),
            "| 2 workers | 2.40 s | 1.20× | ≤ 1.3× | yes | – |"
        );
        assert_eq!(
            row(&s, "2 workers, token required"),
            "| 2 workers, token required | 2.52 s | 1.26× | – | – | 1.05× |"
        );
        assert!(
            row(
                &s,
                "2 workers, one killed halfway (to the answer from the other)"
            )
            .ends_with("| 6.00 s | 3.00× | – | – | 2.50× |")
        );
    }

    #[test]
    fn two_workers_over_the_goal_is_said_and_a_missing_side_is_left_out() {
        let mut snap = sample();
        with(&mut snap, "one-process", 1.0e9);
        with(&mut snap, "two-workers", 1.5e9);
        let s = rendered(&snap);
        assert!(row(&s, "2 workers").ends_with("| 1.50× | ≤ 1.3× | **no** | – |"));
        assert!(!s.contains("TLS |"), "{s}");
    }
}
