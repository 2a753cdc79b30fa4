use mica::tape;

#[tape]
struct Model {
    weight: f64,
}

fn main() {}
