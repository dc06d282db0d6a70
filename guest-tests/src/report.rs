//! Reporting a run: the pass/fail matrix (rows tests, columns arches), failure details, the
//! pending tests with their reasons, a summary line, and machine-readable JSON and JUnit XML
//! (written by hand, no dependencies).
//!
//! Pending outcomes ([`Verdict::Pending`]: `endgate_pending` tests failing under endgate, as
//! expected) show as `xfail` in the matrix, are listed by [`pending`] rather than with the
//! failures, are counted apart in the summary and JSON, and are `<skipped>` in JUnit. An
//! XPASS is a failure like any other.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::arch::Arch;
use crate::runner::{Outcome, Verdict};

/// At most this many bytes of a stream are quoted in details and reports.
const QUOTE_CAP: usize = 4000;

/// The matrix: one row per test, one column per arch, each cell the verdict's label
/// (`-` where the test was not run for that arch).
pub fn matrix(outcomes: &[Outcome], arches: &[&'static Arch]) -> String {
    let mut rows: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for o in outcomes {
        rows.entry(&o.test).or_default().insert(o.arch.name, o.verdict.label());
    }
    let w = rows.keys().map(|k| k.len()).max().unwrap_or(4).max(4);
    let cols: Vec<usize> = arches.iter().map(|a| a.name.len().max(7)).collect();
    let mut s = format!("{:w$}", "test");
    for (a, cw) in arches.iter().zip(&cols) {
        let _ = write!(s, "  {:cw$}", a.name);
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    for (test, cells) in &rows {
        let _ = write!(s, "{test:w$}");
        for (a, cw) in arches.iter().zip(&cols) {
            let _ = write!(s, "  {:cw$}", cells.get(a.name).copied().unwrap_or("-"));
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    }
    s
}

/// Details of every outcome that failed (pending ones aside): why, how to reproduce, stdout
/// and stderr.
pub fn failure_details(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    for o in outcomes.iter().filter(|o| o.verdict.failed()) {
        let _ = writeln!(s, "--- {} [{}]: {}", o.test, o.arch.name, o.verdict.label());
        for line in o.message.lines() {
            let _ = writeln!(s, "    {line}");
        }
        if let (Verdict::XPass, Some(reason)) = (o.verdict, &o.pending) {
            let _ = writeln!(s, "    (it was pending: {reason})");
        }
        let _ = writeln!(s, "    command: {}", o.command);
        if let Some(ex) = &o.execution {
            if !ex.stdout.is_empty() {
                let _ = writeln!(s, "    stdout:\n{}", indent(&quote(&ex.stdout)));
            }
            if !ex.stderr.is_empty() {
                let _ = writeln!(s, "    stderr:\n{}", indent(&quote(&ex.stderr)));
            }
        }
    }
    s
}

/// The pending outcomes, one line per test: its arches and the `endgate_pending` reason
/// (empty if there are none).
pub fn pending(outcomes: &[Outcome]) -> String {
    let mut tests: BTreeMap<&str, (Vec<&str>, &str)> = BTreeMap::new();
    for o in outcomes.iter().filter(|o| o.verdict == Verdict::Pending) {
        let e = tests.entry(&o.test).or_insert_with(|| (Vec::new(), o.pending.as_deref().unwrap_or("")));
        e.0.push(o.arch.name);
    }
    let w = tests.iter().map(|(t, (a, _))| t.len() + a.join(", ").len() + 5).max().unwrap_or(0);
    let mut s = String::new();
    for (test, (arches, reason)) in &tests {
        let _ = writeln!(s, "{:w$}{reason}", format!("{test} [{}]", arches.join(", ")), w = w);
    }
    s
}

/// Counts of (passed, failed, pending) outcomes.
pub fn counts<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> (usize, usize, usize) {
    outcomes.into_iter().fold((0, 0, 0), |(p, f, x), o| {
        (
            p + usize::from(o.verdict.passed()),
            f + usize::from(o.verdict.failed()),
            x + usize::from(o.verdict == Verdict::Pending),
        )
    })
}

/// The closing line: `guest-tests: N passed, M failed, K pending`.
pub fn summary(outcomes: &[Outcome]) -> String {
    let (passed, failed, pending) = counts(outcomes);
    format!("guest-tests: {passed} passed, {failed} failed, {pending} pending")
}

fn quote(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(QUOTE_CAP)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > QUOTE_CAP {
        let _ = write!(s, "\n[... {} more bytes]", bytes.len() - QUOTE_CAP);
    }
    s
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("        {l}")).collect::<Vec<_>>().join("\n")
}

/// JSON string escaping (RFC 8259).
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The run as JSON: `{"emulator": …, "summary": {…}, "results": [{…}, …]}`. A pending
/// outcome has verdict `"pending"`; `"pending_reason"` holds the `endgate_pending` reason
/// whenever the mark applied (pending or XPASS), else null.
pub fn json(outcomes: &[Outcome], emulator: &str) -> String {
    let (passed, failed, pending) = counts(outcomes);
    let mut s = String::new();
    let _ = writeln!(s, "{{\n  \"emulator\": {},", json_str(emulator));
    let _ = writeln!(
        s,
        "  \"summary\": {{\"total\": {}, \"passed\": {passed}, \"failed\": {failed}, \"pending\": {pending}}},",
        outcomes.len(),
    );
    s.push_str("  \"results\": [");
    for (i, o) in outcomes.iter().enumerate() {
        let ex = o.execution.as_ref();
        let opt = |v: Option<i32>| v.map_or("null".to_string(), |v| v.to_string());
        let _ = write!(
            s,
            "{}\n    {{\"test\": {}, \"arch\": {}, \"verdict\": {}, \"passed\": {}, \"pending_reason\": {}, \
             \"duration_ms\": {}, \"expected_status\": {}, \"status\": {}, \"message\": {}, \"command\": {}, \
             \"stdout\": {}, \"stderr\": {}}}",
            if i == 0 { "" } else { "," },
            json_str(&o.test),
            json_str(o.arch.name),
            json_str(if o.verdict == Verdict::Pending { "pending" } else { o.verdict.label() }),
            o.verdict.passed(),
            o.pending.as_deref().map_or("null".to_string(), json_str),
            ex.map_or(0, |e| e.duration.as_millis()),
            opt(o.expected.as_ref().map(|e| e.status)),
            opt(ex.and_then(|e| e.status)),
            json_str(&o.message),
            json_str(&o.command),
            json_str(&quote(ex.map_or(&[][..], |e| &e.stdout))),
            json_str(&quote(ex.map_or(&[][..], |e| &e.stderr))),
        );
    }
    s.push_str("\n  ]\n}\n");
    s
}

/// XML text escaping; characters XML 1.0 cannot hold become U+FFFD.
pub fn xml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The run as JUnit XML: one `<testsuite>` per arch, one `<testcase>` per test. Pending
/// outcomes are `<skipped message="reason"/>`.
pub fn junit(outcomes: &[Outcome], arches: &[&'static Arch]) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (_, failed_all, pending_all) = counts(outcomes);
    let _ = writeln!(
        s,
        "<testsuites name=\"guest-tests\" tests=\"{}\" failures=\"{failed_all}\" skipped=\"{pending_all}\">",
        outcomes.len()
    );
    for a in arches {
        let mine: Vec<&Outcome> = outcomes.iter().filter(|o| o.arch.name == a.name).collect();
        let (_, failed, pending) = counts(mine.iter().copied());
        let time: f64 = mine.iter().filter_map(|o| o.execution.as_ref()).map(|e| e.duration.as_secs_f64()).sum();
        let _ = writeln!(
            s,
            "  <testsuite name=\"guest-tests.{0}\" tests=\"{1}\" failures=\"{failed}\" skipped=\"{pending}\" \
             time=\"{2:.3}\">",
            xml_str(a.name),
            mine.len(),
            time
        );
        for o in mine {
            let t = o.execution.as_ref().map_or(0.0, |e| e.duration.as_secs_f64());
            let head = format!(
                "    <testcase classname=\"guest-tests.{}\" name=\"{}\" time=\"{t:.3}\"",
                xml_str(a.name),
                xml_str(&o.test)
            );
            if o.verdict.passed() {
                let _ = writeln!(s, "{head}/>");
                continue;
            }
            if o.verdict == Verdict::Pending {
                let reason = o.pending.as_deref().unwrap_or("");
                let _ = writeln!(s, "{head}>\n      <skipped message=\"{}\"/>\n    </testcase>", xml_str(reason));
                continue;
            }
            let first = o.message.lines().next().unwrap_or("");
            let _ = writeln!(
                s,
                "{head}>\n      <failure type=\"{}\" message=\"{}\">{}\ncommand: {}</failure>",
                o.verdict.label(),
                xml_str(first),
                xml_str(&o.message),
                xml_str(&o.command)
            );
            if let Some(ex) = &o.execution {
                let _ = writeln!(s, "      <system-out>{}</system-out>", xml_str(&quote(&ex.stdout)));
                let _ = writeln!(s, "      <system-err>{}</system-err>", xml_str(&quote(&ex.stderr)));
            }
            s.push_str("    </testcase>\n");
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

/// The tests that qemu-user passed on `arch` but endgate did not (failed, pending, or not
/// run), sorted, each with endgate's verdict label: the gap the report's per-arch line names.
pub fn gaps<'a>(endgate: &'a [Outcome], qemu: &'a [Outcome], arch: &str) -> Vec<(&'a str, &'static str)> {
    let mut out: Vec<(&str, &str)> = qemu
        .iter()
        .filter(|q| q.arch.name == arch && q.verdict.passed())
        .filter_map(|q| {
            let e = endgate.iter().find(|e| e.arch.name == arch && e.test == q.test);
            match e {
                Some(e) if e.verdict.passed() => None,
                Some(e) => Some((q.test.as_str(), e.verdict.label())),
                None => Some((q.test.as_str(), "not run")),
            }
        })
        .collect();
    out.sort();
    out
}

/// One emulator's run in a report: its title (`endgate`, `qemu-user 10.0.2`), the command as
/// given (`target/release/endgate`, `{qemu}`) and its outcomes.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// The heading and column name.
    pub title: &'a str,
    /// The emulator command as run (before `{qemu}` expansion).
    pub command: &'a str,
    /// Every outcome of the run.
    pub outcomes: &'a [Outcome],
}

/// The words of the per-arch verdict line: "endgate passes every test either qemu-user
/// passes" for two peers, "… every test qemu-user 10.0.2 passes" for one.
pub fn claim(peers: &[Run]) -> String {
    match peers {
        [one] => format!("endgate passes every test {} passes", one.title),
        [_, _] => "endgate passes every test either qemu-user passes".to_string(),
        _ => "endgate passes every test any qemu-user passes".to_string(),
    }
}

/// `guest-tests report`'s Markdown: a per-arch summary table (endgate and each peer), one
/// line per arch saying whether endgate passes every test the peers pass (and if not, which,
/// against each peer), where the peers differ from each other, every matrix, endgate's
/// pending tests with their reasons, and one line per failure of each emulator. `results`
/// lists the JSON and JUnit files written beside it.
pub fn markdown(endgate: &Run, peers: &[Run], arches: &[&'static Arch], results: &[String]) -> String {
    let mut s = String::from("# guest-tests report\n\n");
    let peer_list: Vec<String> = peers.iter().map(|p| format!("{} (`{}`)", p.title, p.command)).collect();
    let _ = writeln!(
        s,
        "Made by `guest-tests report`: every test on every arch under endgate (`{}`) and under {}, \
         judged against the expected outputs (native x86_64 runs; per-arch ones from qemu-user). \
         `xfail` is a test the manifest marks `endgate_pending` for that arch, failing as expected; \
         `-` a test that does not apply to the arch.\n",
        endgate.command,
        peer_list.join(" and ")
    );
    s.push_str("| arch | endgate pass | fail | pending |");
    for p in peers {
        let _ = write!(s, " {} pass | fail |", p.title);
    }
    s.push_str("\n| --- | ---: | ---: | ---: |");
    s.push_str(&" ---: | ---: |".repeat(peers.len()));
    s.push('\n');
    for a in arches {
        let (ep, ef, ex) = counts(endgate.outcomes.iter().filter(|o| o.arch.name == a.name));
        let _ = write!(s, "| {} | {ep} | {ef} | {ex} |", a.name);
        for p in peers {
            let (qp, qf, _) = counts(p.outcomes.iter().filter(|o| o.arch.name == a.name));
            let _ = write!(s, " {qp} | {qf} |");
        }
        s.push('\n');
    }
    s.push('\n');
    let claim = claim(peers);
    let list = |g: &[(&str, &str)]| g.iter().map(|(t, v)| format!("{t} ({v})")).collect::<Vec<_>>().join(", ");
    for a in arches {
        let against: Vec<String> = peers
            .iter()
            .filter_map(|p| {
                let g = gaps(endgate.outcomes, p.outcomes, a.name);
                (!g.is_empty()).then(|| format!("against {}: {}", p.title, list(&g)))
            })
            .collect();
        if against.is_empty() {
            let _ = writeln!(s, "- {}: {claim}: yes", a.name);
        } else {
            let _ = writeln!(s, "- {}: {claim}: no ({})", a.name, against.join("; "));
        }
    }
    if let [first, second] = peers {
        let _ = writeln!(s, "\n{} against {} (the tests one passes and the other does not, each with the verdict of the one that does not):\n", first.title, second.title);
        for a in arches {
            let better = gaps(second.outcomes, first.outcomes, a.name);
            let worse = gaps(first.outcomes, second.outcomes, a.name);
            let none = |g: &[(&str, &str)]| if g.is_empty() { "none".to_string() } else { list(g) };
            let _ = writeln!(
                s,
                "- {}: only {} passes: {}; only {} passes: {}",
                a.name,
                first.title,
                none(&better),
                second.title,
                none(&worse)
            );
        }
    }
    for run in std::iter::once(endgate).chain(peers) {
        let outcomes = run.outcomes;
        let _ = write!(s, "\n## {}\n\n```text\n{}```\n", run.title, matrix(outcomes, arches));
        let _ = writeln!(s, "\n{}", summary(outcomes));
        let p = pending(outcomes);
        if !p.is_empty() {
            let _ = write!(s, "\nPending (`endgate_pending`):\n\n```text\n{p}```\n");
        }
        let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.verdict.failed()).collect();
        if !failed.is_empty() {
            s.push_str("\nFailures (first line of each; details in the JSON):\n\n");
            for o in failed {
                let first = o.message.lines().next().unwrap_or("");
                let _ =
                    writeln!(s, "- {} [{}] {}: {}", o.test, o.arch.name, o.verdict.label(), first.replace('|', "\\|"));
            }
        }
    }
    if !results.is_empty() {
        let _ = write!(s, "\nResults: {}\n", results.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::XPASS_MESSAGE;

    fn outcome(test: &str, arch: &'static str, verdict: Verdict) -> Outcome {
        let pending = matches!(verdict, Verdict::Pending | Verdict::XPass).then(|| "needs <fork> & more".to_string());
        Outcome {
            test: test.into(),
            arch: Arch::by_name(arch).unwrap(),
            verdict,
            message: match verdict {
                Verdict::Pass => String::new(),
                Verdict::XPass => XPASS_MESSAGE.into(),
                _ => "exit status: expected 0, got 1 <&>".into(),
            },
            pending,
            command: "emu prog".into(),
            expected: None,
            execution: None,
        }
    }

    #[test]
    fn renders() {
        let arches: Vec<_> = crate::arch::ARCHES.iter().collect();
        let v = vec![
            outcome("hello", "x86_64", Verdict::Pass),
            outcome("hello", "aarch64", Verdict::Fail),
            outcome("zz", "x86_64", Verdict::Timeout),
        ];
        let m = matrix(&v, &arches);
        assert!(m.contains("hello  pass     FAIL"), "{m}");
        assert!(m.contains("zz     TIMEOUT  -"), "{m}");
        assert_eq!(summary(&v), "guest-tests: 1 passed, 2 failed, 0 pending");
        let j = junit(&v, &arches);
        assert!(j.contains("&lt;&amp;&gt;") && j.contains("failures=\"2\" skipped=\"0\""));
        assert!(json(&v, "e\"mu").contains("\"emulator\": \"e\\\"mu\""));
        assert_eq!(json_str("a\u{1}\n"), "\"a\\u0001\\n\"");
        assert_eq!(xml_str("a\u{1}b"), "a\u{fffd}b");
        assert!(failure_details(&v).contains("--- hello [aarch64]: FAIL"));
        assert_eq!(pending(&v), "");
    }

    #[test]
    fn renders_pending() {
        let arches: Vec<_> = crate::arch::ARCHES.iter().collect();
        let v = vec![
            outcome("fork", "x86_64", Verdict::Pending),
            outcome("fork", "aarch64", Verdict::Pending),
            outcome("hello", "x86_64", Verdict::Pass),
            outcome("hello", "aarch64", Verdict::Pass),
            outcome("sig", "x86_64", Verdict::XPass),
            outcome("sig", "aarch64", Verdict::Pending),
        ];
        assert_eq!(counts(&v), (2, 1, 3));
        assert_eq!(summary(&v), "guest-tests: 2 passed, 1 failed, 3 pending");

        let m = matrix(&v, &arches);
        assert!(m.contains("fork   xfail    xfail"), "{m}");
        assert!(m.contains("sig    XPASS    xfail"), "{m}");

        // Pending tests are listed with their reason, not among the failures.
        let p = pending(&v);
        assert_eq!(p, "fork [x86_64, aarch64]  needs <fork> & more\nsig [aarch64]           needs <fork> & more\n");
        let f = failure_details(&v);
        assert!(!f.contains("--- fork") && !f.contains("xfail"), "{f}");
        assert!(
            f.contains("--- sig [x86_64]: XPASS\n    passes now: remove endgate_pending from the manifest\n"),
            "{f}"
        );
        assert!(f.contains("(it was pending: needs <fork> & more)"), "{f}");

        let j = json(&v, "endgate");
        assert!(j.contains("\"summary\": {\"total\": 6, \"passed\": 2, \"failed\": 1, \"pending\": 3}"), "{j}");
        assert!(j.contains(
            "\"test\": \"fork\", \"arch\": \"x86_64\", \"verdict\": \"pending\", \"passed\": false, \
                        \"pending_reason\": \"needs <fork> & more\""
        ));
        assert!(j.contains("\"verdict\": \"XPASS\", \"passed\": false, \"pending_reason\": \"needs <fork> & more\""));
        assert!(j.contains("\"verdict\": \"pass\", \"passed\": true, \"pending_reason\": null"));

        let x = junit(&v, &arches);
        assert!(x.contains("tests=\"6\" failures=\"1\" skipped=\"3\""), "{x}");
        assert!(x.contains("name=\"guest-tests.x86_64\" tests=\"3\" failures=\"1\" skipped=\"1\""), "{x}");
        assert!(
            x.contains("name=\"fork\" time=\"0.000\">\n      <skipped message=\"needs &lt;fork&gt; &amp; more\"/>\n")
        );
        assert!(x.contains("<failure type=\"XPASS\" message=\"passes now: remove endgate_pending from the manifest\">"));
        assert_eq!(x.matches("<skipped").count(), 3);
    }

    #[test]
    fn report_markdown() {
        let arches: Vec<_> = ["x86_64", "arm"].iter().map(|a| Arch::by_name(a).unwrap()).collect();
        let endgate = vec![
            outcome("hello", "x86_64", Verdict::Pass),
            outcome("hello", "arm", Verdict::Fail),
            outcome("fork", "x86_64", Verdict::Pending),
            outcome("fork", "arm", Verdict::Pending),
            outcome("stat", "x86_64", Verdict::Pass),
        ];
        let qemu = vec![
            outcome("hello", "x86_64", Verdict::Pass),
            outcome("hello", "arm", Verdict::Pass),
            outcome("fork", "x86_64", Verdict::Fail),
            outcome("fork", "arm", Verdict::Pass),
            outcome("stat", "x86_64", Verdict::Pass),
            outcome("stat", "arm", Verdict::Pass),
        ];
        let qemu72 = vec![
            outcome("hello", "x86_64", Verdict::Pass),
            outcome("hello", "arm", Verdict::Fail),
            outcome("fork", "x86_64", Verdict::Pass),
            outcome("fork", "arm", Verdict::Pass),
            outcome("stat", "x86_64", Verdict::Pass),
            outcome("stat", "arm", Verdict::Pass),
        ];
        assert!(gaps(&endgate, &qemu, "x86_64").is_empty());
        assert_eq!(gaps(&endgate, &qemu, "arm"), [("fork", "xfail"), ("hello", "FAIL"), ("stat", "not run")]);
        assert_eq!(gaps(&endgate, &qemu72, "x86_64"), [("fork", "xfail")]);
        let run = |title, command, outcomes| Run { title, command, outcomes };
        let e = run("endgate", "endgate", &endgate[..]);
        let peers = [run("qemu-user 10.0.2", "{qemu}", &qemu[..]), run("qemu-user 7.2", "{qemu72}", &qemu72[..])];
        let md = markdown(&e, &peers, &arches, &["r.json".into()]);
        assert!(md.contains("under qemu-user 10.0.2 (`{qemu}`) and qemu-user 7.2 (`{qemu72}`),"), "{md}");
        assert!(
            md.contains("- x86_64: endgate passes every test either qemu-user passes: no (against qemu-user 7.2: fork (xfail))\n"),
            "{md}"
        );
        assert!(
            md.contains(
                "- arm: endgate passes every test either qemu-user passes: no (against qemu-user 10.0.2: fork (xfail), \
                 hello (FAIL), stat (not run); against qemu-user 7.2: fork (xfail), stat (not run))\n"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| arch | endgate pass | fail | pending | qemu-user 10.0.2 pass | fail | qemu-user 7.2 pass | fail |\n\
                 | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
                 | x86_64 | 2 | 0 | 1 | 2 | 1 | 3 | 0 |\n| arm | 0 | 1 | 1 | 3 | 0 | 2 | 1 |\n"
            ),
            "{md}"
        );
        assert!(
            md.contains("- x86_64: only qemu-user 10.0.2 passes: none; only qemu-user 7.2 passes: fork (FAIL)\n"),
            "{md}"
        );
        assert!(
            md.contains("- arm: only qemu-user 10.0.2 passes: hello (FAIL); only qemu-user 7.2 passes: none\n"),
            "{md}"
        );
        assert!(md.contains("## endgate\n\n```text\ntest   x86_64   arm\nfork   xfail    xfail\n"), "{md}");
        assert!(md.contains("\n## qemu-user 10.0.2\n") && md.contains("\n## qemu-user 7.2\n"), "{md}");
        assert!(md.contains("- hello [arm] FAIL: exit status: expected 0, got 1 <&>\n"), "{md}");
        let one = markdown(&e, &peers[..1], &arches, &[]);
        assert!(one.contains("- x86_64: endgate passes every test qemu-user 10.0.2 passes: yes\n"), "{one}");
        assert!(!one.contains(" against qemu-user 7.2") && !one.contains("Results:"), "{one}");
        assert!(md.contains("Results: `r.json`"), "{md}");
    }
}
