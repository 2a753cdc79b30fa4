//! Peak heap per gradient call: for each program, the largest number of
//! heap bytes live at once during one call of the hand-written adjoint and
//! of Mica's `_backward` (inputs and slots are made before measuring).
//! Prints a Markdown table.

use mica_benches::{advection, course, gmm, helmholtz, logistic, mlp, ode, rosenbrock};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The peak of live heap bytes while `f` runs.
fn peak(f: impl FnOnce()) -> u64 {
    let _profiler = dhat::Profiler::builder().testing().build();
    f();
    dhat::HeapStats::get().max_bytes as u64
}

fn bytes(n: u64) -> String {
    match n {
        0 => "0".to_string(),
        n if n < 10 * 1024 => format!("{n} B"),
        n if n < 10 * 1024 * 1024 => format!("{:.0} KiB", n as f64 / 1024.0),
        n => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
    }
}

fn main() {
    let mut rows: Vec<(&str, u64, u64)> = Vec::new();

    let (mut d, a) = (0.0, 0.7);
    let hand = peak(|| {
        course::course_hand(a, 1.0, &mut d);
    });
    let mica = peak(|| {
        course::course_backward(a, 1.0, &mut d);
    });
    rows.push(("Course loss (1 knob)", hand, mica));

    for (n, name) in [
        (10, "Extended Rosenbrock, n = 10"),
        (1000, "Extended Rosenbrock, n = 1,000"),
        (100_000, "Extended Rosenbrock, n = 100,000"),
    ] {
        let x = rosenbrock::start(n);
        let mut d = vec![0.0; n];
        let hand = peak(|| {
            rosenbrock::rosenbrock_hand(&x, 1.0, &mut d);
        });
        let mica = peak(|| {
            rosenbrock::rosenbrock_backward(&x, 1.0, &mut d);
        });
        rows.push((name, hand, mica));
    }

    for (n, dd, name) in [
        (1000, 10, "Logistic regression, 1,000 × 10"),
        (10_000, 100, "Logistic regression, 10,000 × 100"),
    ] {
        let p = logistic::problem(n, dd);
        let (mut dw, mut db) = (vec![0.0; dd], 0.0);
        let hand = peak(|| {
            logistic::logistic_hand(&p.w, p.b, &p.x, &p.y, 1.0, &mut dw, &mut db);
        });
        let mica = peak(|| {
            logistic::logistic_backward(&p.w, p.b, &p.x, &p.y, 1.0, &mut dw, &mut db);
        });
        rows.push((name, hand, mica));
    }

    let (p, data) = (mlp::Params::init(7), mlp::batch());
    let mut g = mlp::Params::zeros();
    let hand = peak(|| {
        mlp::batch_hand(&p, &data, &mut g);
    });
    let mica = peak(|| {
        mlp::batch_mica(&p, &data, &mut g);
    });
    rows.push(("MLP 16-32-32-10, tanh, softmax CE, batch 128", hand, mica));

    let q0 = advection::initial();
    let mut d = vec![0.0; q0.len()];
    let hand = peak(|| {
        advection::lax_wendroff_hand(&q0, 2000, 0.125, 1.0, &mut d);
    });
    let mica = peak(|| {
        advection::lax_wendroff_backward(&q0, 2000, 0.125, 1.0, &mut d);
    });
    rows.push(("Advection, Lax–Wendroff, NX 100, 2,000 steps", hand, mica));
    let hand = peak(|| {
        advection::toon_hand(&q0, 2000, 0.125, 1.0, &mut d);
    });
    let mica = peak(|| {
        advection::toon_backward(&q0, 2000, 0.125, 1.0, &mut d);
    });
    rows.push(("Advection, Toon, NX 100, 2,000 steps", hand, mica));

    let obs = ode::observations();
    let (mut dk, mut dc) = (0.0, 0.0);
    let hand = peak(|| {
        ode::oscillator_hand(4.0, 0.2, &obs, 1.0, &mut dk, &mut dc);
    });
    let mica = peak(|| {
        ode::oscillator_backward(4.0, 0.2, &obs, 1.0, &mut dk, &mut dc);
    });
    rows.push(("Damped oscillator, 1,000 steps, 2 knobs", hand, mica));

    let (x, a, b) = helmholtz::problem(100);
    let mut d = vec![0.0; x.len()];
    let hand = peak(|| {
        helmholtz::helmholtz_hand(&x, &a, &b, 1.0, &mut d);
    });
    let mica = peak(|| {
        helmholtz::helmholtz_backward(&x, &a, &b, 1.0, &mut d);
    });
    rows.push(("Helmholtz free energy, n = 100", hand, mica));

    let p = gmm::problem();
    let (k, d) = (p.k, p.d);
    let (mut da, mut dm, mut di) = (vec![0.0; k], vec![0.0; k * d], vec![0.0; p.icf.len()]);
    let hand = peak(|| {
        gmm::gmm_hand(
            &p.alphas, &p.means, &p.icf, &p.x, k, d, p.gamma, p.m, 1.0, &mut da, &mut dm, &mut di,
        );
    });
    let mica = peak(|| {
        gmm::gmm_backward(
            &p.alphas, &p.means, &p.icf, &p.x, k, d, p.gamma, p.m, 1.0, &mut da, &mut dm, &mut di,
        );
    });
    rows.push(("ADBench GMM, d = 2, K = 5, n = 1,000", hand, mica));

    println!("| program | hand-written | Mica `_backward` |");
    println!("| --- | ---: | ---: |");
    for (name, hand, mica) in rows {
        println!("| {name} | {} | {} |", bytes(hand), bytes(mica));
    }
}
