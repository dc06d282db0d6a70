//! The SVG chart of a run (`results.svg`): for every workload and guest architecture, two
//! horizontal bars, endgate / native and qemu-user 10.0.2 / native, on a log scale around 1x.
//!
//! "Native" is the host's own run of the same workload (for a foreign guest, the x86_64
//! build or the amd64 busybox run natively); `null_gate` is drawn against the native
//! `null_trap`, because the host kernel offers no gate. A bar starts at 1x, so slower than
//! native points right and faster points left. Written as a plain string: no dependencies.

use crate::report::{find, Row, Runner};
use crate::workloads::{Arch, Workload};
use std::fmt::Write as _;

/// One chart line: a label and the two ratios (either may be missing).
struct Line {
    label: String,
    endgate: Option<f64>,
    qemu: Option<f64>,
}

/// The lines of the chart, in report order (workload, then arch).
fn lines(rows: &[Row], host: Arch) -> Vec<Line> {
    let mut out = Vec::new();
    for w in Workload::ALL {
        let ref_w = if w == Workload::NullGate { Workload::NullTrap } else { w };
        let Some(native) = find(rows, ref_w, host, Runner::Native).and_then(Row::metric) else {
            continue;
        };
        for a in Arch::ALL {
            let ratio = |r| find(rows, w, a, r).and_then(Row::metric).map(|v| v / native);
            let (endgate, qemu) = (ratio(Runner::Endgate), ratio(Runner::Qemu));
            if endgate.is_none() && qemu.is_none() {
                continue;
            }
            let guest = if w.is_busybox() { a.debarch() } else { a.name() };
            out.push(Line { label: format!("{} {guest}", w.name()), endgate, qemu });
        }
    }
    out
}

/// Escape text for SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Render the chart; `title` goes on top (date, machine). Returns `None` when no ratio can
/// be drawn (no native run).
pub fn svg(rows: &[Row], host: Option<Arch>, title: &str) -> Option<String> {
    let lines = lines(rows, host?);
    let values: Vec<f64> = lines.iter().flat_map(|l| [l.endgate, l.qemu]).flatten().filter(|v| *v > 0.0).collect();
    if values.is_empty() {
        return None;
    }
    // Decades covering every ratio and 1x.
    #[allow(clippy::cast_possible_truncation)] // a decade exponent of an f64: within ±330
    let lo = values.iter().copied().fold(1.0f64, f64::min).log10().floor() as i32;
    #[allow(clippy::cast_possible_truncation)] // likewise
    let hi = values.iter().copied().fold(1.0f64, f64::max).log10().ceil().max(f64::from(lo + 1)) as i32;
    let (label_w, plot_w, right) = (210.0, 640.0, 70.0);
    let (top, bar_h, gap) = (70.0, 9.0, 8.0);
    let line_h = 2.0 * bar_h + gap;
    let height = top + lines.len() as f64 * line_h + 40.0;
    let width = label_w + plot_w + right;
    let x_of = |v: f64| label_w + (v.log10() - f64::from(lo)) / f64::from(hi - lo) * plot_w;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="10" y="18" font-size="14" font-weight="bold">{}</text>"#, esc(title));
    let _ = writeln!(
        s,
        r##"<rect x="10" y="30" width="12" height="9" fill="#3b6fb6"/><text x="27" y="38">endgate / native</text><rect x="150" y="30" width="12" height="9" fill="#e08a2c"/><text x="167" y="38">qemu-user 10.0.2 / native</text><text x="345" y="38">(log scale; right of 1x = slower than native)</text>"##
    );
    // Grid: every decade, with 2x and 5x ticks in between.
    let bottom = top + lines.len() as f64 * line_h;
    for d in lo..=hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(d);
            if d == hi && m > 1.0 {
                continue;
            }
            let x = x_of(v);
            let (stroke, w) = if m == 1.0 { ("#999", 1.0) } else { ("#ddd", 0.5) };
            let _ = writeln!(
                s,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="{stroke}" stroke-width="{w}"/>"#,
                top - 8.0
            );
            let text = if v >= 1.0 { format!("{v}x") } else { format!("{}x", (v * 1e6).round() / 1e6) };
            let _ = writeln!(
                s,
                r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{text}</text>"##,
                top - 12.0
            );
        }
    }
    let one = x_of(1.0);
    let _ = writeln!(
        s,
        r#"<line x1="{one:.1}" y1="{:.1}" x2="{one:.1}" y2="{bottom:.1}" stroke="black" stroke-width="1.5"/>"#,
        top - 8.0
    );
    for (i, l) in lines.iter().enumerate() {
        let y = top + i as f64 * line_h;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 8.0,
            y + bar_h + 3.0,
            esc(&l.label)
        );
        for (k, (v, color)) in [(l.endgate, "#3b6fb6"), (l.qemu, "#e08a2c")].into_iter().enumerate() {
            let by = y + k as f64 * bar_h;
            match v.filter(|v| *v > 0.0) {
                Some(v) => {
                    let x = x_of(v);
                    let (x0, w) = if x >= one { (one, x - one) } else { (x, one - x) };
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.1}" y="{by:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}: {v:.3}x</title></rect>"#,
                        w.max(0.5),
                        bar_h - 1.0,
                        esc(&l.label)
                    );
                    let tx = if x >= one { x + 3.0 } else { x - 3.0 };
                    let anchor = if x >= one { "start" } else { "end" };
                    let _ = writeln!(
                        s,
                        r#"<text x="{tx:.1}" y="{:.1}" font-size="9" text-anchor="{anchor}">{v:.2}x</text>"#,
                        by + bar_h - 1.5
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#888">n/a</text>"##,
                        one + 3.0,
                        by + bar_h - 1.5
                    );
                }
            }
        }
    }
    let _ = writeln!(s, "</svg>");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Outcome;

    fn row(w: Workload, a: Arch, r: Runner, secs: f64) -> Row {
        Row { workload: w, arch: a, runner: r, size: 1, command: None, outcome: Outcome::walls(vec![secs], None, None) }
    }

    #[test]
    fn bars_relative_to_native() {
        let rows = vec![
            row(Workload::Compute, Arch::X86_64, Runner::Native, 1.0),
            row(Workload::Compute, Arch::Aarch64, Runner::Endgate, 3.0),
            row(Workload::Compute, Arch::Aarch64, Runner::Qemu, 2.0),
        ];
        let svg = svg(&rows, Some(Arch::X86_64), "t").unwrap();
        assert!(svg.contains("compute aarch64: 3.000x"), "{svg}");
        assert!(svg.contains("compute aarch64: 2.000x"));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(super::svg(&rows[1..], Some(Arch::X86_64), "t").is_none());
    }
}
