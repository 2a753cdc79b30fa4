#[mica::tape]
mod physics;

fn main() {}
