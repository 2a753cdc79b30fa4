use mica_benches::logistic;
#[inline(never)]
fn run(p: &logistic::Problem, mw: &mut [f64], mb: &mut f64) -> f64 {
    logistic::logistic_backward(std::hint::black_box(&p.w), p.b, &p.x, &p.y, 1.0, mw, mb)
}
fn main() {
    let p = logistic::problem(10_000, 100);
    let mut mw = vec![0.0; 100];
    let mut mb = 0.0;
    let mut s = 0.0;
    for _ in 0..20 {
        s += run(&p, &mut mw, &mut mb);
    }
    println!("{s} {}", mw[0]);
}
