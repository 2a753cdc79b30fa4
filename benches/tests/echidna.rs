//! The `echidna` peer (`src/peers_echidna.rs`) on every outside program and
//! on Extended Rosenbrock: each program as written for echidna gives the
//! primal's value at `f64`, and both of echidna's reverse modes (the
//! recorded bytecode tape and the eager tape) give the hand-written
//! adjoint's gradient.

use mica_benches::peers_echidna;

fn assert_agree(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let top = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * top,
            "{what}: slope {i} is {x:e} against the hand-written {y:e} (largest {top:e})"
        );
    }
}

#[test]
fn echidna_against_the_hand_written_adjoints() {
    let peers = peers_echidna::peers();
    assert_eq!(peers.len(), mica_benches::outside::names().len() + 1);
    for mut p in peers {
        let v = (p.plain)(&p.x);
        assert!(
            (v - p.value).abs() <= 1e-12 * v.abs().max(1e-300),
            "{}: echidna's program gives {v:e}, the primal {:e}",
            p.name,
            p.value
        );
        // echidna differentiates the Newton iterations; the hand adjoint
        // uses the implicit function theorem at the last iterate
        let tol = if p.name.contains("Newton") {
            1e-9
        } else {
            1e-10
        };
        let taped = (p.tape)(&p.x);
        assert_agree(&format!("{} (bytecode tape)", p.name), &taped, &p.hand, tol);
        // the tape again, its buffer reused
        let again = (p.tape)(&p.x);
        assert_eq!(taped, again, "{}: the tape twice", p.name);
        let eager = (p.eager)(&p.x);
        assert_agree(&format!("{} (eager)", p.name), &eager, &p.hand, tol);
    }
}
