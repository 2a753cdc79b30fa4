//! The peers' Hessian-vector products on Extended Rosenbrock, each giving
//! what Mica's `rosenbrock_hvp` gives: the value, the gradient and `H·v`.
//!
//! - `num-dual` 0.15 (built without its `nalgebra` feature, so without the
//!   vector duals and the `hessian` function): forward over forward with
//!   the scalar `HyperDual64`. Each input `x_j` carries `v_j` in `eps1` and
//!   `[i == j]` in `eps2`; one pass then gives `∂f/∂x_i` in `eps2` and
//!   `(H·v)_i = e_iᵀ H v` in `eps1eps2`. One pass per input: `n` passes of
//!   the whole function, `O(n²)` for a function of cost `O(n)`.
//! - `ad_trait` 0.3: forward over reverse with `HyperAD_ADR<1>`, a dual
//!   number whose value and tangent are `adr` nodes of the crate's
//!   thread-local graph. Each input's value is a graph variable and its
//!   tangent the constant `v_j`; one pass records `f` and `∇f·v` as nodes,
//!   and a reverse sweep from each gives the gradient and `H·v`. Its
//!   documented route to second derivatives, `FunctionEngine::hessian`
//!   with `HessianAD_FOR<N>`, forms the whole Hessian (one pass with `N`
//!   tangents per `N` rows and a reverse sweep per row), then `H·v` is a
//!   product: [`hvp_ad_trait_hessian`], for `n = 10` only.
//!
//! Both peers' functions are written once, generic over the crate's number
//! trait, as their users write them.

use ad_trait::differentiable_function::{DifferentiableFunctionTrait, HessianAD_FOR};
use ad_trait::function_engine::FunctionEngine;
use ad_trait::hyper_ad::hyper_adr::HyperAD_ADR;
use ad_trait::reverse_ad::adr::{adr, GlobalComputationGraph};
use ad_trait::AD;
use num_dual::{DualNum, HyperDual64};

// ----- num-dual -------------------------------------------------------------

/// Extended Rosenbrock over any of `num-dual`'s numbers (and `f64`).
pub fn rosenbrock_num_dual<D: DualNum<Primitive = f64> + Copy>(x: &[D]) -> D {
    let mut f = D::zero();
    for p in x.chunks_exact(2) {
        let t = p[1] - p[0] * p[0];
        let u = -p[0] + 1.0;
        f += t * t * 100.0 + u * u;
    }
    f
}

/// Value, gradient and `H·v` by `num-dual`: one `HyperDual64` pass per input.
pub fn hvp_num_dual(x: &[f64], v: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    assert_eq!(x.len(), v.len());
    let mut xs: Vec<HyperDual64> = x
        .iter()
        .zip(v)
        .map(|(&x, &v)| HyperDual64::new(x, v, 0.0, 0.0))
        .collect();
    let (mut value, mut grad, mut hv) = (0.0, vec![0.0; x.len()], vec![0.0; x.len()]);
    for i in 0..x.len() {
        xs[i].eps2 = 1.0;
        let f = rosenbrock_num_dual(&xs);
        xs[i].eps2 = 0.0;
        (value, grad[i], hv[i]) = (f.re, f.eps2, f.eps1eps2);
    }
    (value, grad, hv)
}

// ----- ad_trait -------------------------------------------------------------

/// Extended Rosenbrock over any of `ad_trait`'s numbers (and `f64`).
pub fn rosenbrock_ad<T: AD>(x: &[T]) -> T {
    let mut f = T::constant(0.0);
    for p in x.chunks_exact(2) {
        let t = p[1] - p[0] * p[0];
        let u = T::constant(1.0) - p[0];
        f += T::constant(100.0) * t * t + u * u;
    }
    f
}

/// Value, gradient and `H·v` by `ad_trait`, forward over reverse: one pass
/// with `HyperAD_ADR<1>`, then a reverse sweep from the value (the
/// gradient) and one from the tangent (`H·v`).
pub fn hvp_ad_trait(x: &[f64], v: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    assert_eq!(x.len(), v.len());
    GlobalComputationGraph::get().reset();
    let vars: Vec<adr> = x.iter().map(|&x| adr::new_variable(x, false)).collect();
    let xs: Vec<HyperAD_ADR<1>> = vars
        .iter()
        .zip(v)
        .map(|(&a, &v)| HyperAD_ADR::new(a, [<adr as AD>::constant(v)]))
        .collect();
    let f = rosenbrock_ad(&xs);
    let g = f.inner_value().get_backwards_mode_grad();
    let h = f.inner_tangent()[0].get_backwards_mode_grad();
    (
        f.value(),
        vars.iter().map(|a| g.wrt(a)).collect(),
        vars.iter().map(|a| h.wrt(a)).collect(),
    )
}

/// Extended Rosenbrock as an `ad_trait` differentiable function of `n`
/// inputs.
#[derive(Clone)]
pub struct Rosenbrock {
    pub n: usize,
}

impl<T: AD> DifferentiableFunctionTrait<T> for Rosenbrock {
    const NAME: &'static str = "Rosenbrock";

    fn call(&self, inputs: &[T], _freeze: bool) -> Vec<T> {
        vec![rosenbrock_ad(inputs)]
    }

    fn num_inputs(&self) -> usize {
        self.n
    }

    fn num_outputs(&self) -> usize {
        1
    }
}

/// The engine of [`hvp_ad_trait_hessian`]: ten tangents per pass, so one
/// pass for `n = 10`.
pub type HessianEngine = FunctionEngine<Rosenbrock, Rosenbrock, HessianAD_FOR<10>>;

/// An engine for [`hvp_ad_trait_hessian`].
pub fn hessian_engine(n: usize) -> HessianEngine {
    FunctionEngine::new(Rosenbrock { n }, Rosenbrock { n }, HessianAD_FOR::new())
}

/// Value, gradient and `H·v` by `ad_trait`'s own Hessian: the whole
/// Hessian (forward over reverse, `HessianAD_FOR<10>`), then `H·v`.
pub fn hvp_ad_trait_hessian(
    engine: &HessianEngine,
    x: &[f64],
    v: &[f64],
) -> (f64, Vec<f64>, Vec<f64>) {
    let (value, jacobian, hessians) = engine.hessian(x);
    let hv = &hessians[0] * ad_trait::nalgebra::DVector::from_column_slice(v);
    (
        value[0],
        jacobian.row(0).iter().copied().collect(),
        hv.iter().copied().collect(),
    )
}
