//! Reads criterion's medians (`target/criterion/<group>/<variant>/new/
//! estimates.json`) and prints the benchmark tables as Markdown. Given the
//! file `interleaved` writes under `MICA_TURNS_TSV`, the summary also shows
//! each program's ratio timed in turns, and leads with those.
//!
//! Usage: `report CRITERION_DIR [TURNS_TSV]`

use mica_benches::time;
use std::fs;
use std::path::Path;

/// The programs, in report order: criterion group and title.
const PROGRAMS: &[(&str, &str)] = &[
    ("course", "Course loss (1 knob)"),
    ("rosenbrock_n10", "Extended Rosenbrock, n = 10"),
    ("rosenbrock_n1000", "Extended Rosenbrock, n = 1,000"),
    ("rosenbrock_n100000", "Extended Rosenbrock, n = 100,000"),
    ("logistic_1000x10", "Logistic regression, 1,000 × 10"),
    ("logistic_10000x100", "Logistic regression, 10,000 × 100"),
    ("mlp_b128", "MLP 16-32-32-10, tanh, softmax CE, batch 128"),
    (
        "lax_wendroff_nx100_nt2000",
        "Advection, Lax–Wendroff, NX 100, 2,000 steps",
    ),
    ("toon_nx100_nt2000", "Advection, Toon, NX 100, 2,000 steps"),
    ("oscillator_1000", "Damped oscillator, 1,000 steps, 2 knobs"),
    ("helmholtz_n100", "Helmholtz free energy, n = 100"),
    ("gmm_d2_k5_n1000", "ADBench GMM, d = 2, K = 5, n = 1,000"),
    (
        "kepler_n1000",
        "Kepler's equation by Newton (loop, break), n = 1,000",
    ),
    ("masked_n10000", "Masked sum (continue), n = 10,000"),
    (
        "ba_helpers_2000",
        "Bundle adjustment, helpers (rodrigues, project), 2,000 obs.",
    ),
    (
        "ba_inline_2000",
        "Bundle adjustment, written inline, 2,000 obs.",
    ),
    (
        "robot_helpers_7",
        "Robot arm, helpers (rot, trans, matmul), 7 joints",
    ),
    ("robot_inline_7", "Robot arm, written inline, 7 joints"),
    (
        "rosenbrock_chain_n10000",
        "Rosenbrock as an iterator chain, n = 10,000",
    ),
];

/// The variants, in report order: criterion id and label.
const VARIANTS: &[(&str, &str)] = &[
    ("primal", "primal (no gradient)"),
    ("hand", "hand-written adjoint"),
    ("mica_backward", "Mica `_backward`"),
    ("mica_grad", "Mica `_grad`"),
    ("reverse", "reverse 0.2 (runtime tape)"),
    ("num_dual", "num-dual 0.15 (forward, one pass per input)"),
    ("ad_trait", "ad_trait 0.3 (`adr`, reverse)"),
    ("candle", "candle-core 0.11 (f64 tensors)"),
];

const PEERS: &[&str] = &["reverse", "num_dual", "ad_trait", "candle"];

/// Why a peer has no number for a program.
fn why_not(group: &str, peer: &str) -> &'static str {
    match peer {
        "num_dual" => "forward mode needs one pass per input; run only where inputs ≤ 11",
        "candle" if group == "toon_nx100_nt2000" || group == "oscillator_1000" => {
            "not written: a scalar recurrence, thousands of tiny tensor ops per gradient"
        }
        "candle" => "not written (time)",
        _ => "not measured",
    }
}

/// The median point estimate in nanoseconds, if criterion measured it.
fn median(dir: &Path, group: &str, variant: &str) -> Option<f64> {
    let path = dir.join(group).join(variant).join("new/estimates.json");
    let text = fs::read_to_string(path).ok()?;
    let at = text.find("\"median\"")?;
    let rest = &text[at..];
    let key = "\"point_estimate\":";
    let from = rest.find(key)? + key.len();
    let num: String = rest[from..]
        .chars()
        .skip_while(|c| c.is_whitespace())
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().ok()
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "—".to_string(),
    }
}

/// The ratios Mica/hand timed in turns, by program title: median, lower and
/// upper quartile.
fn turns(path: &Path) -> Vec<(String, [f64; 3])> {
    let Ok(text) = fs::read_to_string(path) else {
        eprintln!("report: cannot read {}", path.display());
        std::process::exit(1);
    };
    text.lines()
        .filter_map(|line| {
            let mut cells = line.split('\t');
            let title = cells.next()?.to_string();
            let mut number = || cells.next()?.parse::<f64>().ok();
            Some((title, [number()?, number()?, number()?]))
        })
        .collect()
}

/// The geometric mean of `ratios`, and the largest and smallest with the
/// program each belongs to.
fn spread<'a>(ratios: &[(f64, &'a str)]) -> (f64, (f64, &'a str), (f64, &'a str)) {
    let n = ratios.len() as f64;
    let geo = (ratios.iter().map(|(r, _)| r.ln()).sum::<f64>() / n).exp();
    let worst = ratios.iter().copied().fold(
        (f64::NEG_INFINITY, ""),
        |a, b| if b.0 > a.0 { b } else { a },
    );
    let best = ratios
        .iter()
        .copied()
        .fold((f64::INFINITY, ""), |a, b| if b.0 < a.0 { b } else { a });
    (geo, worst, best)
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/criterion".to_string());
    let dir = Path::new(&dir);
    let turns = std::env::args().nth(2).map(|p| turns(Path::new(&p)));
    let in_turns = |title: &str| {
        turns
            .as_ref()
            .and_then(|t| t.iter().find(|(name, _)| name == title))
            .map(|(_, r)| r[0])
    };
    let mut turns_over_hand = Vec::new();
    let mut summary = Vec::new();
    let mut detail = String::new();
    let mut mica_over_hand = Vec::new();
    for &(group, title) in PROGRAMS {
        let m = |v: &str| median(dir, group, v);
        let (primal, hand, mica) = (m("primal"), m("hand"), m("mica_backward"));
        if let (Some(h), Some(k)) = (hand, mica) {
            mica_over_hand.push((k / h, title));
        }
        let turn = in_turns(title);
        if let Some(r) = turn {
            turns_over_hand.push((r, title));
        }
        // the lead ratio in bold: in turns where given, else criterion's
        let bold = if turns.is_some() { "" } else { "**" };
        let mut row = format!(
            "| {title} | {} | {} | {} | {bold}{}{bold} |",
            primal.map_or("—".into(), time),
            hand.map_or("—".into(), time),
            mica.map_or("—".into(), time),
            ratio(mica, hand),
        );
        if turns.is_some() {
            row.push_str(&format!(" **{}** |", ratio(turn, Some(1.0))));
        }
        row.push_str(&format!(" {} |", ratio(mica, primal)));
        for peer in PEERS {
            row.push_str(&format!(" {} |", ratio(m(peer), mica)));
        }
        summary.push(row);

        detail.push_str(&format!("\n### {title}\n\n"));
        detail.push_str("| variant | median | ÷ hand | ÷ primal | ÷ Mica |\n");
        detail.push_str("| --- | ---: | ---: | ---: | ---: |\n");
        for &(id, label) in VARIANTS {
            match m(id) {
                Some(t) => detail.push_str(&format!(
                    "| {label} | {} | {} | {} | {} |\n",
                    time(t),
                    ratio(Some(t), hand),
                    ratio(Some(t), primal),
                    ratio(Some(t), mica),
                )),
                None if PEERS.contains(&id) => {
                    detail.push_str(&format!("| {label} | — ({}) | | | |\n", why_not(group, id)))
                }
                None => detail.push_str(&format!(
                    "| {label} | — (not timed: `_backward` plus allocating the result) | | | |\n"
                )),
            }
        }
    }

    println!("## Summary\n");
    println!(
        "Medians; ratios are the row's median over another's (lower is better \
         for Mica/hand and Mica/primal; a peer/Mica above 1 means Mica is faster). \
         \"Mica\" is `_backward` with its slots zeroed before each call."
    );
    println!();
    if turns.is_some() {
        println!(
            "\"In turns\" is Mica/hand timed in turns in one process (the median \
             of its paired rounds; see below), the ratio this machine measures \
             reliably; the column before it divides criterion's medians, taken \
             seconds apart."
        );
        println!();
    }
    let turns_head = if turns.is_some() { " in turns |" } else { "" };
    let turns_rule = if turns.is_some() { " ---: |" } else { "" };
    println!(
        "| program | primal | hand | Mica | Mica/hand |{turns_head} Mica/primal | \
         reverse/Mica | num-dual/Mica | ad_trait/Mica | candle/Mica |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |{turns_rule} ---: | ---: | ---: | ---: | ---: |");
    for row in &summary {
        println!("{row}");
    }
    println!();
    if !turns_over_hand.is_empty() {
        let (geo, (worst, worst_at), (best, best_at)) = spread(&turns_over_hand);
        println!(
            "**Mica / hand-written timed in turns, geometric mean over the {} programs: \
             {geo:.2}.** Worst: {worst:.2} ({worst_at}); best: {best:.2} ({best_at}).",
            turns_over_hand.len()
        );
        println!();
    }
    if !mica_over_hand.is_empty() {
        let (geo, (worst, worst_at), (best, best_at)) = spread(&mica_over_hand);
        let lead = if turns_over_hand.is_empty() { "**" } else { "" };
        println!(
            "{lead}Mica / hand-written from criterion's separate runs, geometric mean over \
             the {} programs: {geo:.2}.{lead} Worst: {worst:.2} ({worst_at}); best: \
             {best:.2} ({best_at}).",
            mica_over_hand.len()
        );
        println!();
    }
    println!("## Per program\n{detail}");
}
