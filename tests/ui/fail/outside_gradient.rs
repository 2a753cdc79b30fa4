fn main() {
    let a = 1.0_f64;
    println!("{}", mica::gradient!(a));
}
