// A copy of a tracked struct is followed field by field when its name is
// bound nowhere else; bound again, which binding a use means is rustc's to
// say, and Mica asks for the fields instead.
#[derive(Clone, mica::Knob)]
pub struct State {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
}

#[mica::tape]
pub fn loss(#[tracked] s0: &State) -> f64 {
    let mut s = s0.clone();
    s.pos[0] += s.vel[0];
    let t = s.pos[0];
    let s = 2.0 * t;
    s
}

fn main() {}
