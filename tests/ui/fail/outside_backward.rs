fn main() {
    let y = 1.0_f64;
    mica::backward!(y);
}
