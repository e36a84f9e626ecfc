//! The report's plots as inline SVG, drawn here from the figures' numbers (no plotting library, no
//! external asset). Every string that comes from stored data goes through [`escape`].

use std::fmt::Write as _;

use crate::figures::{CweRow, ModelBar, Series, Share};

/// Escapes text for HTML (and SVG inside HTML), in element content and in quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const WIDTH: f64 = 760.0;
const LABEL_WIDTH: f64 = 300.0;
const PLOT_WIDTH: f64 = WIDTH - LABEL_WIDTH - 40.0;
const ROW: f64 = 30.0;
const PLAUSIBLE: &str = "#9ecae1";
const CORRECT: &str = "#2171b5";

/// Labels longer than this are cut in the plot (the full text is the element's tooltip).
fn short(label: &str) -> String {
    const MAX: usize = 44;
    if label.chars().count() <= MAX {
        label.to_owned()
    } else {
        let cut: String = label.chars().take(MAX - 1).collect();
        format!("{cut}…")
    }
}

fn open(out: &mut String, figure: &str, height: f64, title: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" data-figure="{figure}" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{}" font-family="sans-serif" font-size="12">"#,
        escape(title)
    );
}

/// The x axis of a share plot: ticks every 20%.
fn share_axis(out: &mut String, top: f64, bottom: f64) {
    for tick in 0..=5 {
        let x = LABEL_WIDTH + PLOT_WIDTH * f64::from(tick) / 5.0;
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}%</text>"##,
            bottom + 14.0,
            tick * 20
        );
    }
}

fn x_of(share: f64) -> f64 {
    LABEL_WIDTH + PLOT_WIDTH * share.clamp(0.0, 1.0)
}

/// A horizontal error bar for a Wilson interval, centred at `y`.
fn error_bar(out: &mut String, share: &Share, y: f64) {
    let (low, high) = (x_of(share.lower), x_of(share.upper));
    let _ = write!(
        out,
        r##"<line x1="{low:.1}" y1="{y:.1}" x2="{high:.1}" y2="{y:.1}" stroke="#000"/><line x1="{low:.1}" y1="{:.1}" x2="{low:.1}" y2="{:.1}" stroke="#000"/><line x1="{high:.1}" y1="{:.1}" x2="{high:.1}" y2="{:.1}" stroke="#000"/>"##,
        y - 4.0,
        y + 4.0,
        y - 4.0,
        y + 4.0
    );
}

fn row_label(out: &mut String, label: &str, y: f64) {
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text>"#,
        LABEL_WIDTH - 8.0,
        y + 4.0,
        escape(label),
        escape(&short(label))
    );
}

/// Fixed vulnerabilities per model row: the plausible share as a light bar, the correct share as a
/// dark bar inside it, each with its 95% Wilson interval as an error bar.
pub fn model_bars(bars: &[ModelBar]) -> String {
    let height = 40.0 + ROW * bars.len() as f64 + 30.0;
    let mut out = String::new();
    open(
        &mut out,
        "model-bars",
        height,
        "Share of tasks fixed per model, with 95% Wilson intervals",
    );
    share_axis(&mut out, 30.0, height - 30.0);
    let _ = write!(
        out,
        r##"<rect x="{LABEL_WIDTH}" y="6" width="12" height="10" fill="{PLAUSIBLE}"/><text x="{:.1}" y="15">plausible</text><rect x="{:.1}" y="6" width="12" height="10" fill="{CORRECT}"/><text x="{:.1}" y="15">correct (error bars: 95% Wilson)</text>"##,
        LABEL_WIDTH + 16.0,
        LABEL_WIDTH + 90.0,
        LABEL_WIDTH + 106.0
    );
    for (i, bar) in bars.iter().enumerate() {
        let top = 34.0 + ROW * i as f64;
        let middle = top + 11.0;
        row_label(&mut out, &bar.label, middle);
        let _ = write!(
            out,
            r#"<rect x="{LABEL_WIDTH}" y="{top:.1}" width="{:.1}" height="22" fill="{PLAUSIBLE}"><title>plausible {} of {}</title></rect><rect x="{LABEL_WIDTH}" y="{:.1}" width="{:.1}" height="10" fill="{CORRECT}"><title>correct {} of {}</title></rect>"#,
            x_of(bar.plausible.estimate) - LABEL_WIDTH,
            bar.plausible.part,
            bar.plausible.whole,
            top + 6.0,
            x_of(bar.correct.estimate) - LABEL_WIDTH,
            bar.correct.part,
            bar.correct.whole,
        );
        error_bar(&mut out, &bar.plausible, top + 3.0);
        error_bar(&mut out, &bar.correct, top + 11.0);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}/{}</text>"#,
            x_of(bar.plausible.upper) + 6.0,
            middle + 4.0,
            bar.plausible.part,
            bar.plausible.whole
        );
    }
    out.push_str("</svg>");
    out
}

/// The heat map: a row per CWE, a column per model row, shaded by the share of that CWE's tasks
/// the model fixed, with "fixed/tasks" written in each cell.
pub fn cwe_heat_map(rows: &[CweRow], columns: &[String]) -> String {
    let cell_width = (PLOT_WIDTH / columns.len().max(1) as f64).min(120.0);
    let header = 24.0 + 14.0 * columns.len() as f64;
    let height = header + ROW * rows.len() as f64 + 10.0;
    let mut out = String::new();
    open(
        &mut out,
        "cwe-heat-map",
        height,
        "Tasks fixed per CWE and model",
    );
    // Column keys: numbered, with the names listed above the grid.
    for (c, name) in columns.iter().enumerate() {
        let x = LABEL_WIDTH + cell_width * c as f64 + cell_width / 2.0;
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text><text x="8" y="{:.1}">{}: {}</text>"#,
            header - 6.0,
            c + 1,
            14.0 + 14.0 * c as f64,
            c + 1,
            escape(&short(name))
        );
    }
    for (r, row) in rows.iter().enumerate() {
        let top = header + ROW * r as f64;
        row_label(&mut out, &row.cwe, top + ROW / 2.0);
        for (c, &(fixed, tasks)) in row.cells.iter().enumerate() {
            let share = if tasks == 0 {
                0.0
            } else {
                fixed as f64 / tasks as f64
            };
            // White (nothing fixed) to dark blue (all fixed); a cell without tasks is grey.
            let fill = if tasks == 0 {
                "#eee".to_owned()
            } else {
                let channel = |from: f64, to: f64| (from + (to - from) * share).round() as u8;
                format!(
                    "#{:02x}{:02x}{:02x}",
                    channel(255.0, 33.0),
                    channel(255.0, 113.0),
                    channel(255.0, 181.0)
                )
            };
            let text = if share > 0.6 { "#fff" } else { "#000" };
            let x = LABEL_WIDTH + cell_width * c as f64;
            let _ = write!(
                out,
                r##"<rect x="{x:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="#fff"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{text}">{fixed}/{tasks}</text>"##,
                cell_width,
                ROW,
                x + cell_width / 2.0,
                top + ROW / 2.0 + 4.0
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// Groups of points (an offset, a benchmark) with their plausible share and interval: one block of
/// rows per series, a dot with its error bar per point.
pub fn series(figure: &str, title: &str, series: &[Series]) -> String {
    let rows: usize = series.iter().map(|s| s.points.len() + 1).sum();
    let height = 20.0 + ROW * rows as f64 + 30.0;
    let mut out = String::new();
    open(&mut out, figure, height, title);
    share_axis(&mut out, 16.0, height - 30.0);
    let mut row = 0usize;
    for s in series {
        let y = 20.0 + ROW * row as f64 + ROW / 2.0;
        let _ = write!(
            out,
            r#"<text x="8" y="{:.1}" font-weight="bold"><title>{}</title>{}</text>"#,
            y + 4.0,
            escape(&s.label),
            escape(&short(&s.label))
        );
        row += 1;
        let mut previous: Option<(f64, f64)> = None;
        for (x_label, share) in &s.points {
            let y = 20.0 + ROW * row as f64 + ROW / 2.0;
            row_label(&mut out, x_label, y);
            error_bar(&mut out, share, y);
            let x = x_of(share.estimate);
            if let Some((px, py)) = previous {
                let _ = write!(
                    out,
                    r##"<line x1="{px:.1}" y1="{py:.1}" x2="{x:.1}" y2="{y:.1}" stroke="{CORRECT}" stroke-dasharray="3 3"/>"##
                );
            }
            let _ = write!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="{CORRECT}"><title>{} of {} plausible</title></circle><text x="{:.1}" y="{:.1}">{}/{}</text>"#,
                share.part,
                share.whole,
                x_of(share.upper) + 6.0,
                y + 4.0,
                share.part,
                share.whole
            );
            previous = Some((x, y));
            row += 1;
        }
    }
    out.push_str("</svg>");
    out
}

/// The memorization probe against the score, one plot per run: each probed task a dot at its
/// probe score (x: share of the fix's tokens the continuation reproduced) and its plausible rate
/// (y: share of its heard samples that were Plausible), the task's name as the dot's tooltip.
pub fn probe_scatter(run: &str, points: &[crate::ProbePoint], caption: &str) -> String {
    const SIDE: f64 = 300.0;
    const LEFT: f64 = 70.0;
    const TOP: f64 = 30.0;
    let height = TOP + SIDE + 50.0;
    let mut out = String::new();
    open(
        &mut out,
        "probe-scatter",
        height,
        &format!("{run}: probe score against plausible rate per task"),
    );
    let _ = write!(
        out,
        r#"<text x="{LEFT}" y="18" font-weight="bold"><title>{}</title>{}</text>"#,
        escape(run),
        escape(&format!("{}: {caption}", short(run)))
    );
    let x_at = |v: f64| LEFT + SIDE * v.clamp(0.0, 1.0);
    let y_at = |v: f64| TOP + SIDE * (1.0 - v.clamp(0.0, 1.0));
    for tick in 0..=5 {
        let v = f64::from(tick) / 5.0;
        let (x, y) = (x_at(v), y_at(v));
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{TOP:.1}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}%</text><line x1="{LEFT:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555">{}%</text>"##,
            TOP + SIDE,
            TOP + SIDE + 14.0,
            tick * 20,
            LEFT + SIDE,
            LEFT - 6.0,
            y + 4.0,
            tick * 20
        );
    }
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">probe score (share of the fix reproduced)</text><text x="{:.1}" y="{:.1}" text-anchor="middle" transform="rotate(-90 {:.1} {:.1})">plausible rate</text>"##,
        LEFT + SIDE / 2.0,
        TOP + SIDE + 34.0,
        LEFT - 44.0,
        TOP + SIDE / 2.0,
        LEFT - 44.0,
        TOP + SIDE / 2.0
    );
    for p in points {
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{CORRECT}" fill-opacity="0.6"><title>{}: score {:.2}, plausible {:.0}%</title></circle>"#,
            x_at(p.score),
            y_at(p.plausible_rate),
            escape(&p.task),
            p.score,
            p.plausible_rate * 100.0
        );
    }
    out.push_str("</svg>");
    out
}
