//! Reading criterion's results: each benchmark's `new/benchmark.json` (its id and throughput)
//! and `new/estimates.json` (its time) under `target/criterion`.

use crate::Result;
use crate::snapshot::{Bench, Throughput, parse_json};
use serde_json::Value;
use std::path::Path;

/// Every complete result under `dir` (criterion's output directory), sorted by id; none if the
/// suites that ran write no criterion results (`ratios`, `allocations`) or `dir` is missing.
pub(crate) fn read_all(dir: &Path) -> Result<Vec<Bench>> {
    let mut benches = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "new") {
                    if let Some(b) = read_one(&path)? {
                        benches.push(b);
                    }
                } else if path
                    .file_name()
                    .is_some_and(|n| n != "base" && n != "report")
                {
                    stack.push(path);
                }
            }
        }
    }
    benches.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(benches)
}

/// One criterion result directory (`…/new`), or `None` if it is incomplete.
fn read_one(dir: &Path) -> Result<Option<Bench>> {
    let (Ok(meta), Ok(est)) = (
        std::fs::read_to_string(dir.join("benchmark.json")),
        std::fs::read_to_string(dir.join("estimates.json")),
    ) else {
        return Ok(None);
    };
    let meta = parse_json(&meta, &dir.join("benchmark.json"))?;
    let est = parse_json(&est, &dir.join("estimates.json"))?;
    let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
    let estimate = if est["slope"].is_object() {
        &est["slope"]
    } else {
        &est["mean"]
    };
    let num = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let throughput = match &meta["throughput"] {
        Value::Object(m) => m.iter().find_map(|(k, v)| {
            let n = v.as_u64()?;
            match k.as_str() {
                "Elements" | "ElementsAndBytes" => Some(Throughput::Elements(n)),
                "Bytes" | "BytesDecimal" => Some(Throughput::Bytes(n)),
                _ => None,
            }
        }),
        _ => None,
    };
    Ok(Some(Bench {
        id: text(&meta["full_id"]),
        group: text(&meta["group_id"]),
        function: text(&meta["function_id"]),
        parameter: text(&meta["value_str"]),
        ns: num(&estimate["point_estimate"]),
        ns_lower: num(&estimate["confidence_interval"]["lower_bound"]),
        ns_upper: num(&estimate["confidence_interval"]["upper_bound"]),
        throughput,
    }))
}
