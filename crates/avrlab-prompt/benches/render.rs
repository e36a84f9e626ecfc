//! Prompts rendered per second, per format: the parsed-once [`Renderer`] against the naive way that
//! reads and parses the template files for every prompt. Run with `cargo bench -p avrlab-prompt`.
#![expect(clippy::print_stdout, reason = "a bench reports its figures on stdout")]

use std::hint::black_box;
use std::time::{Duration, Instant};

use avrlab_prompt::{Format, RenderOptions, Renderer, TemplateSet, VulnerableMethod};

#[path = "../tests/samples.rs"]
mod samples;

/// How long each measurement runs.
const WINDOW: Duration = Duration::from_millis(300);

/// Renders prompts until `WINDOW` has passed; returns prompts per second.
fn rate(mut render_one: impl FnMut() -> usize) -> f64 {
    let start = Instant::now();
    let mut count = 0u64;
    let mut bytes = 0usize;
    while start.elapsed() < WINDOW {
        for _ in 0..64 {
            bytes += render_one();
            count += 1;
        }
    }
    black_box(bytes);
    count as f64 / start.elapsed().as_secs_f64()
}

/// The naive way: read every template file from disk and parse it for each prompt.
fn render_naive(method: &VulnerableMethod, format: Format) -> usize {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/templates");
    let mut templates = TemplateSet::builtin();
    for name in TemplateSet::file_names() {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).expect("template file");
        templates
            .override_file(name, &text)
            .expect("template parses");
    }
    let rendered = Renderer::new(templates)
        .render(method, format, &RenderOptions::default())
        .expect("renders");
    black_box(rendered).frame.before.len()
}

fn main() {
    let methods = samples::all().map(|(_, method)| method);
    let renderer = Renderer::default();
    println!(
        "{:<16} {:>14} {:>14} {:>8}",
        "format", "prompts/s", "naive/s", "ratio"
    );
    for format in Format::ALL {
        let mut i = 0;
        let fast = rate(|| {
            i += 1;
            let rendered =
                renderer.render(&methods[i % 2], format, &RenderOptions { fl_offset: 0 });
            black_box(rendered).map_or(0, |r| r.frame.before.len())
        });
        let mut j = 0;
        let naive = rate(|| {
            j += 1;
            render_naive(&methods[j % 2], format)
        });
        println!(
            "{:<16} {:>14.0} {:>14.0} {:>7.1}x",
            format.name(),
            fast,
            naive,
            fast / naive
        );
    }
}
