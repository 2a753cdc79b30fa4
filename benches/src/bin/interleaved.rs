//! Mica against the hand-written adjoint, timed in turns: for each program,
//! a block of hand-written calls, then a block of Mica's (the order swapped
//! every round), many rounds in one process. Each round gives one ratio
//! Mica/hand from two blocks timed a few milliseconds apart, so a machine
//! that slows down or speeds up over minutes moves both alike; criterion's
//! separate runs of each variant cannot cancel that. Prints a Markdown
//! table of the median ratio per program and its quartiles, then their
//! geometric mean. With `peers`, the runtime-tape peers against Mica
//! instead, in turns the same way, on Extended Rosenbrock n = 1,000: their
//! median ratio peer/Mica.
//!
//! With `structs`, the MLP tracked as one `#[derive(Knob)]` struct against
//! the same MLP with one tracked parameter per field.
//!
//! With `higher`, `_tangent` against the primal and `_hvp` against
//! `_backward` on the programs of `src/higher.rs`, then what
//! `higher-peers` prints: the peers' Hessian-vector products against
//! Mica's `_hvp` on Extended Rosenbrock (their ratio peer/Mica), and the
//! bundle-adjustment Jacobian block by Mica's `_jacobian` against the
//! hand-written one and the primal.
//!
//! With `outside`, the programs written by others (`src/outside/`): each
//! hand-written adjoint against Mica's `_backward` in turns, then the
//! primal against Mica's `_backward` in turns, and the geometric means of
//! both ratios. With `echidna`, the `echidna` crate's two reverse modes
//! (its recorded bytecode tape and its eager tape) against Mica's
//! `_backward` on the same programs and on Extended Rosenbrock, n = 1,000,
//! their ratio peer/Mica.
//!
//! `interleaved [ROUNDS] [peers | structs | higher | higher-peers | outside | echidna | WORD]` (150 rounds by default; with
//! `WORD`, only the programs whose name contains it). With
//! `MICA_TURNS_TSV=FILE`, the programs' ratios also go to `FILE`, one line
//! per program (`title`, median, lower and upper quartile, tab-separated),
//! for `report` to put beside criterion's.

use mica_benches::calls::{self, block, calibrate};
use mica_benches::time;
use std::time::Duration;

/// How long one block of calls runs, about.
const BLOCK: Duration = Duration::from_millis(2);

/// The value at fraction `q` of the sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// One program's rounds: the medians per call of `c.hand` and `c.mica`,
/// and the median and quartiles of the per-round ratio mica/hand.
struct Turns {
    hand: f64,
    mica: f64,
    ratio: [f64; 3],
}

fn turns(c: &mut calls::Calls, rounds: usize) -> Turns {
    let (hand_reps, mica_reps) = (calibrate(&mut c.hand, BLOCK), calibrate(&mut c.mica, BLOCK));
    let (mut hand, mut mica, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (h, m) = if round % 2 == 0 {
            let h = block(&mut c.hand, hand_reps);
            (h, block(&mut c.mica, mica_reps))
        } else {
            let m = block(&mut c.mica, mica_reps);
            (block(&mut c.hand, hand_reps), m)
        };
        hand.push(h);
        mica.push(m);
        ratios.push(m / h);
    }
    for v in [&mut hand, &mut mica, &mut ratios] {
        v.sort_by(f64::total_cmp);
    }
    Turns {
        hand: quantile(&hand, 0.5),
        mica: quantile(&mica, 0.5),
        ratio: [0.25, 0.5, 0.75].map(|q| quantile(&ratios, q)),
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    if std::env::args().nth(2).as_deref() == Some("peers") {
        peers(rounds);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("outside") {
        outside(rounds);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("echidna") {
        echidna(rounds);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("higher-peers") {
        higher_peers(rounds);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("higher") {
        for (title, what, calls) in [
            (
                "`_tangent` / primal",
                "tangent/primal",
                mica_benches::higher::tangents(),
            ),
            (
                "`_hvp` / `_backward`",
                "hvp/backward",
                mica_benches::higher::hvps(),
            ),
        ] {
            println!("{title}:\n");
            println!("| program | base | higher | {what}, median | quartiles |");
            println!("| --- | ---: | ---: | ---: | ---: |");
            let mut logs = Vec::new();
            for mut c in calls {
                let t = turns(&mut c, rounds);
                let [low, median, high] = t.ratio;
                logs.push(median.ln());
                println!(
                    "| {} | {} | {} | **{median:.2}** | {low:.2}–{high:.2} |",
                    c.name,
                    time(t.hand),
                    time(t.mica),
                );
            }
            let geomean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
            println!("\n**{what}, geometric mean of the medians: {geomean:.2}.**\n");
        }
        higher_peers(rounds);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("structs") {
        println!("| program | fields | struct | struct/fields, median | quartiles |");
        println!("| --- | ---: | ---: | ---: | ---: |");
        for mut c in calls::structs() {
            let t = turns(&mut c, rounds);
            let [lower, median, upper] = t.ratio;
            println!(
                "| {} | {} | {} | **{median:.3}** | {lower:.3}–{upper:.3} |",
                c.name,
                time(t.hand),
                time(t.mica),
            );
        }
        return;
    }
    println!("| program | hand | Mica | Mica/hand, median | quartiles |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut logs = Vec::new();
    let mut tsv = String::new();
    let only = std::env::args().nth(2);
    for mut c in calls::all() {
        if only
            .as_ref()
            .is_some_and(|word| !c.name.contains(word.as_str()))
        {
            continue;
        }
        let t = turns(&mut c, rounds);
        let [low, median, high] = t.ratio;
        logs.push(median.ln());
        tsv.push_str(&format!("{}\t{median}\t{low}\t{high}\n", c.name));
        println!(
            "| {} | {} | {} | **{median:.2}** | {low:.2}–{high:.2} |",
            c.name,
            time(t.hand),
            time(t.mica),
        );
    }
    if let Some(path) = std::env::var_os("MICA_TURNS_TSV") {
        if let Err(e) = std::fs::write(&path, tsv) {
            eprintln!("interleaved: cannot write {}: {e}", path.to_string_lossy());
            std::process::exit(1);
        }
    }
    let geomean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    let worst = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max).exp();
    println!();
    println!(
        "**Interleaved Mica / hand-written, geometric mean of the medians: {geomean:.2}; worst {worst:.2}.**"
    );
}

/// The peers in turns with Mica. Their ratio is peer/Mica: the per-round
/// ratio `turns` gives (Mica over the peer) inverted, its quartiles swapped.
fn peers(rounds: usize) {
    println!("| peer, program | peer | Mica | peer/Mica, median | quartiles |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for mut c in calls::peers() {
        let t = turns(&mut c, rounds);
        let [upper, median, lower] = t.ratio.map(f64::recip);
        println!(
            "| {} | {} | {} | **{median:.1}** | {lower:.1}–{upper:.1} |",
            c.name,
            time(t.hand),
            time(t.mica),
        );
    }
}

/// The peers' Hessian-vector products against Mica's `_hvp` (peer/Mica,
/// as in `peers`), then the bundle-adjustment Jacobian block.
fn higher_peers(rounds: usize) {
    println!("Hessian-vector products on Extended Rosenbrock (value, gradient and H·v):\n");
    println!("| peer, program | peer | Mica `_hvp` | peer/Mica, median | quartiles |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for mut c in mica_benches::higher::hvp_peers() {
        let t = turns(&mut c, rounds);
        let [upper, median, lower] = t.ratio.map(f64::recip);
        println!(
            "| {} | {} | {} | **{median:.1}** | {lower:.1}–{upper:.1} |",
            c.name,
            time(t.hand),
            time(t.mica),
        );
    }
    println!("\nADBench bundle adjustment, one residual's 2 × 15 Jacobian:\n");
    println!("| ratio | denominator | numerator | median | quartiles |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for mut c in mica_benches::higher::ba_jacobians() {
        let t = turns(&mut c, rounds);
        let [low, median, high] = t.ratio;
        println!(
            "| {} | {} | {} | **{median:.2}** | {low:.2}–{high:.2} |",
            c.name,
            time(t.hand),
            time(t.mica),
        );
    }
    println!();
}

/// The outside programs: Mica/hand and Mica/primal, each in turns.
fn outside(rounds: usize) {
    use mica_benches::outside;
    println!(
        "| program | primal | hand | Mica | Mica/hand, median | quartiles | Mica/primal, median | quartiles |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (mut hand_logs, mut primal_logs) = (Vec::new(), Vec::new());
    // `interleaved 150 outside WORD`: only the programs whose name holds WORD
    let only = std::env::args().nth(3);
    for (mut h, mut p) in outside::calls().into_iter().zip(outside::primal_calls()) {
        if only.as_ref().is_some_and(|w| !h.name.contains(w.as_str())) {
            continue;
        }
        let th = turns(&mut h, rounds);
        let tp = turns(&mut p, rounds);
        let [hl, hm, hu] = th.ratio;
        let [pl, pm, pu] = tp.ratio;
        hand_logs.push(hm.ln());
        primal_logs.push(pm.ln());
        println!(
            "| {} | {} | {} | {} | **{hm:.2}** | {hl:.2}–{hu:.2} | **{pm:.2}** | {pl:.2}–{pu:.2} |",
            h.name,
            time(tp.hand),
            time(th.hand),
            time(th.mica),
        );
    }
    let mean = |v: &[f64]| (v.iter().sum::<f64>() / v.len() as f64).exp();
    let worst = hand_logs
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .exp();
    println!();
    println!(
        "**Outside programs, Mica / hand-written, geometric mean of the medians: {:.2}; worst {worst:.2}.**",
        mean(&hand_logs)
    );
    println!(
        "**Outside programs, Mica `_backward` / primal, geometric mean of the medians: {:.2}.**",
        mean(&primal_logs)
    );
    let mut n = outside::newton_iterations_calls();
    let t = turns(&mut n, rounds);
    let [l, m, u] = t.ratio;
    println!();
    println!(
        "The Newton fit against a second hand adjoint, of the iterations reversed (what Mica differentiates; `newton::implicit_fit_iterations_hand`): hand {}, Mica {}, Mica/hand **{m:.2}** (quartiles {l:.2}–{u:.2}).",
        time(t.hand),
        time(t.mica),
    );
    let mut a = outside::lstm_accurate_calls();
    let t = turns(&mut a, rounds);
    let [l, m, u] = t.ratio;
    println!();
    println!(
        "The LSTM against a second hand adjoint, its gates' slopes in the accurate form Mica computes, `σ² exp(−x)` (`lstm::objective_hand_accurate`): hand {}, Mica {}, Mica/hand **{m:.2}** (quartiles {l:.2}–{u:.2}).",
        time(t.hand),
        time(t.mica),
    );
}

/// echidna's bytecode tape and eager tape against Mica's `_backward`, in
/// turns; their ratio peer/Mica (inverted as in `peers`).
fn echidna(rounds: usize) {
    use mica_benches::peers_echidna;
    println!(
        "| program | Mica | echidna tape | tape/Mica, median | quartiles | echidna eager | eager/Mica, median | quartiles |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (mut tape_logs, mut eager_logs) = (Vec::new(), Vec::new());
    for (mut tape, mut eager) in peers_echidna::calls() {
        let tt = turns(&mut tape, rounds);
        let te = turns(&mut eager, rounds);
        let [tu, tm, tl] = tt.ratio.map(f64::recip);
        let [eu, em, el] = te.ratio.map(f64::recip);
        tape_logs.push(tm.ln());
        eager_logs.push(em.ln());
        println!(
            "| {} | {} | {} | **{tm:.1}** | {tl:.1}–{tu:.1} | {} | **{em:.1}** | {el:.1}–{eu:.1} |",
            tape.name,
            time(tt.mica),
            time(tt.hand),
            time(te.hand),
        );
    }
    let mean = |v: &[f64]| (v.iter().sum::<f64>() / v.len() as f64).exp();
    println!();
    println!(
        "**echidna / Mica, geometric mean of the medians: bytecode tape {:.1}, eager tape {:.1}.**",
        mean(&tape_logs),
        mean(&eager_logs)
    );
}
