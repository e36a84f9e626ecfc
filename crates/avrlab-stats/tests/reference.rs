//! avrlab's statistics against values computed independently with scipy and statsmodels
//! (`tests/fixtures/reference.json`, made by `scripts/stats-fixtures`; the library versions are
//! recorded in the file). Every value must agree to 1e-9: absolutely for probabilities and
//! interval bounds, relatively for quantiles, means and margins, whose scale varies.

use std::path::Path;

use avrlab_stats::{
    agresti_coull, cohen_kappa, fisher_exact, mcnemar_exact, mean_with_margin, normal_cdf,
    normal_quantile, paired_tost, pass_at_k, pearson, student_t_cdf, student_t_quantile, wilson,
};
use serde::Deserialize;

const TOLERANCE: f64 = 1e-9;

#[derive(Deserialize)]
struct Reference {
    normal_cdf: Vec<Cdf>,
    normal_quantile: Vec<Quantile>,
    student_t_cdf: Vec<Cdf>,
    student_t_quantile: Vec<Quantile>,
    wilson: Vec<Proportion>,
    agresti_coull: Vec<Proportion>,
    mean_with_margin: Vec<Margin>,
    pass_at_k: Vec<PassAtK>,
    mcnemar_exact: Vec<McNemarCase>,
    paired_tost: Vec<TostCase>,
    cohen_kappa: Vec<KappaCase>,
    fisher_exact: Vec<FisherCase>,
    pearson: Vec<PearsonCase>,
}

#[derive(Deserialize)]
struct PearsonCase {
    xs: Vec<f64>,
    ys: Vec<f64>,
    confidence: f64,
    r: f64,
    p_value: f64,
    interval: (f64, f64),
}

#[derive(Deserialize)]
struct FisherCase {
    table: [[u64; 2]; 2],
    p_value: f64,
    odds_ratio: Option<f64>,
    odds_ratio_kind: String,
}

#[derive(Deserialize)]
struct KappaCase {
    table: Vec<Vec<u64>>,
    confidence: f64,
    kappa: f64,
    std_error: f64,
    interval: (f64, f64),
}

#[derive(Deserialize)]
struct Cdf {
    #[serde(alias = "t")]
    x: f64,
    df: Option<f64>,
    value: f64,
}

#[derive(Deserialize)]
struct Quantile {
    p: f64,
    df: Option<f64>,
    value: f64,
}

#[derive(Deserialize)]
struct Proportion {
    successes: u64,
    trials: u64,
    confidence: f64,
    lower: f64,
    upper: f64,
}

#[derive(Deserialize)]
struct Margin {
    values: Vec<f64>,
    confidence: f64,
    mean: f64,
    margin: f64,
    std_dev: f64,
}

#[derive(Deserialize)]
struct PassAtK {
    n: u64,
    correct: u64,
    k: u64,
    value: f64,
}

#[derive(Deserialize)]
struct McNemarCase {
    only_first: u64,
    only_second: u64,
    p_value: f64,
}

#[derive(Deserialize)]
struct TostCase {
    first: Vec<f64>,
    second: Vec<f64>,
    margin: f64,
    alpha: f64,
    mean_difference: f64,
    p_lower: f64,
    p_upper: f64,
    p_value: f64,
    interval: (f64, f64),
    equivalent: bool,
}

fn reference() -> Reference {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// Collects every disagreement so that one run shows all of them.
#[derive(Default)]
struct Checker {
    failures: Vec<String>,
    checked: usize,
}

impl Checker {
    fn absolute(&mut self, what: String, got: f64, expected: f64) {
        self.checked += 1;
        // A NaN from either side is a disagreement too.
        let agrees = (got - expected).abs() <= TOLERANCE;
        if !agrees {
            self.failures.push(format!(
                "{what}: got {got:e}, scipy/statsmodels {expected:e}"
            ));
        }
    }

    fn relative(&mut self, what: String, got: f64, expected: f64) {
        self.checked += 1;
        let agrees = (got - expected).abs() <= TOLERANCE * expected.abs().max(1.0);
        if !agrees {
            self.failures.push(format!(
                "{what}: got {got:e}, scipy/statsmodels {expected:e}"
            ));
        }
    }

    fn finish(self, minimum: usize) {
        assert!(
            self.checked >= minimum,
            "only {} values checked, expected at least {minimum}: is the fixture file complete?",
            self.checked
        );
        assert!(
            self.failures.is_empty(),
            "{} of {} values disagree:\n{}",
            self.failures.len(),
            self.checked,
            self.failures.join("\n")
        );
    }
}

#[test]
fn distributions_match_scipy() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.normal_cdf {
        check.absolute(
            format!("normal_cdf({})", case.x),
            normal_cdf(case.x),
            case.value,
        );
    }
    for case in &reference.normal_quantile {
        let what = format!("normal_quantile({})", case.p);
        check.relative(what, normal_quantile(case.p), case.value);
    }
    for case in &reference.student_t_cdf {
        let df = case.df.expect("student_t_cdf cases have df");
        let what = format!("student_t_cdf({}, df {df})", case.x);
        check.absolute(what, student_t_cdf(case.x, df), case.value);
    }
    for case in &reference.student_t_quantile {
        let df = case.df.expect("student_t_quantile cases have df");
        let what = format!("student_t_quantile({}, df {df})", case.p);
        check.relative(what, student_t_quantile(case.p, df), case.value);
    }
    check.finish(100);
}

#[test]
fn binomial_intervals_match_statsmodels() {
    let reference = reference();
    let mut check = Checker::default();
    type IntervalFn =
        fn(u64, u64, f64) -> Result<avrlab_stats::Interval, avrlab_stats::IntervalError>;
    let methods: [(&str, &[Proportion], IntervalFn); 2] = [
        ("wilson", &reference.wilson, wilson),
        ("agresti_coull", &reference.agresti_coull, agresti_coull),
    ];
    for (name, cases, interval) in methods {
        for case in cases {
            let got = interval(case.successes, case.trials, case.confidence).unwrap();
            let what = format!(
                "{name}({}/{}, {})",
                case.successes, case.trials, case.confidence
            );
            check.absolute(format!("{what} lower"), got.lower, case.lower);
            check.absolute(format!("{what} upper"), got.upper, case.upper);
        }
    }
    check.finish(40);
}

#[test]
fn run_margins_match_scipy() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.mean_with_margin {
        let got = mean_with_margin(&case.values, case.confidence).unwrap();
        let what = format!("mean_with_margin({:?}, {})", case.values, case.confidence);
        check.relative(format!("{what} mean"), got.mean, case.mean);
        check.relative(format!("{what} margin"), got.margin, case.margin);
        check.relative(format!("{what} std_dev"), got.std_dev, case.std_dev);
    }
    check.finish(15);
}

#[test]
fn pass_at_k_matches_the_exact_ratio_of_binomials() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.pass_at_k {
        let got = pass_at_k(case.n, case.correct, case.k).unwrap();
        let what = format!("pass@{}(n {}, c {})", case.k, case.n, case.correct);
        check.absolute(what, got, case.value);
    }
    check.finish(10);
}

#[test]
fn mcnemar_matches_statsmodels() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.mcnemar_exact {
        let got = mcnemar_exact(case.only_first, case.only_second).p_value;
        let what = format!("mcnemar_exact({}, {})", case.only_first, case.only_second);
        check.absolute(what.clone(), got, case.p_value);
        // Tiny p-values must also be right in their own scale.
        if case.p_value < 1e-3 {
            check.relative(format!("{what} (relative)"), got / case.p_value, 1.0);
        }
    }
    check.finish(9);
}

#[test]
fn paired_tost_matches_statsmodels() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.paired_tost {
        let got = paired_tost(&case.first, &case.second, case.margin, case.alpha).unwrap();
        let what = format!("paired_tost(margin {}, alpha {})", case.margin, case.alpha);
        check.relative(
            format!("{what} mean"),
            got.mean_difference,
            case.mean_difference,
        );
        check.absolute(format!("{what} p_lower"), got.p_lower, case.p_lower);
        check.absolute(format!("{what} p_upper"), got.p_upper, case.p_upper);
        check.absolute(format!("{what} p"), got.p_value, case.p_value);
        check.relative(format!("{what} low"), got.interval.0, case.interval.0);
        check.relative(format!("{what} high"), got.interval.1, case.interval.1);
        assert_eq!(got.equivalent, case.equivalent, "{what}: equivalence");
    }
    check.finish(30);
}

#[test]
fn cohen_kappa_matches_statsmodels() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.cohen_kappa {
        let got = cohen_kappa(&case.table, case.confidence).unwrap();
        let what = format!("cohen_kappa({:?}, {})", case.table, case.confidence);
        check.absolute(format!("{what} kappa"), got.kappa, case.kappa);
        check.absolute(format!("{what} std_error"), got.std_error, case.std_error);
        check.absolute(format!("{what} low"), got.interval.0, case.interval.0);
        check.absolute(format!("{what} high"), got.interval.1, case.interval.1);
    }
    check.finish(40);
}

#[test]
fn fisher_exact_matches_scipy() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.fisher_exact {
        let [[a, b], [c, d]] = case.table;
        let got = fisher_exact(a, b, c, d);
        let what = format!("fisher_exact({:?})", case.table);
        check.absolute(format!("{what} p"), got.p_value, case.p_value);
        match (case.odds_ratio_kind.as_str(), case.odds_ratio) {
            ("finite", Some(odds)) => check.relative(format!("{what} odds"), got.odds_ratio, odds),
            ("inf", None) => assert!(got.odds_ratio.is_infinite(), "{what}: {got:?}"),
            ("nan", None) => assert!(got.odds_ratio.is_nan(), "{what}: {got:?}"),
            other => panic!("{what}: unexpected odds ratio {other:?} in the fixture"),
        }
    }
    check.finish(16);
}

#[test]
fn pearson_matches_scipy() {
    let reference = reference();
    let mut check = Checker::default();
    for case in &reference.pearson {
        let got = pearson(&case.xs, &case.ys, case.confidence).unwrap();
        let what = format!("pearson({:?}, {:?}, {})", case.xs, case.ys, case.confidence);
        check.absolute(format!("{what} r"), got.r, case.r);
        check.absolute(format!("{what} p"), got.p_value, case.p_value);
        check.absolute(format!("{what} low"), got.lower, case.interval.0);
        check.absolute(format!("{what} high"), got.upper, case.interval.1);
    }
    check.finish(12);
}
