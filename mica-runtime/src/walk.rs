//! A range loop's reverse, walking its run's kept items by position.
//!
//! [`zip_back`](crate::zip_back) pairs a range walked backward with the
//! items its run kept, each from its own iterator; the compiler then sees
//! two counts that stop the loop and loses what it knows of the range's
//! variable, so reads such as `s[i - 1]` keep their bounds checks and the
//! loop is not vectorised. For a range written `a..b`, the reverse reads
//! each item at the variable's distance from `a` instead
//! ([`zip_back_range`]): one count, the range's own.
//!
//! A loop whose iterations pass nothing back may be walked in the order it
//! ran ([`zip_up_range`]): its items are read from the oldest, the range's
//! count again the loop's only one.

use crate::tape::{Rewind, StackBack, TakenBack};
use core::ops::Range;

/// Items taken back from a tape that can be read by position: `0` the
/// oldest, one past the last the newest.
#[doc(hidden)]
pub trait Positional: Iterator {
    /// Reads the item at position `k` and gives up every position from
    /// `k` on: the items below `k` are the only ones left to read.
    ///
    /// # Safety
    ///
    /// `k` is below every position read before (and below the count taken
    /// back): each item is read once.
    unsafe fn take_at(&mut self, k: usize) -> Self::Item;
}

impl<T> Positional for TakenBack<'_, T> {
    #[inline(always)]
    unsafe fn take_at(&mut self, k: usize) -> T {
        self.left = k;
        // SAFETY: `k` is below `left` (the caller's promise), so the slot
        // `from + k` holds an item no one has read; from now on `left`
        // no longer covers it, nor any slot above it
        unsafe { self.spare.as_ptr().add(self.from + k).read() }
    }
}

impl<T> Positional for StackBack<'_, T> {
    #[inline(always)]
    unsafe fn take_at(&mut self, k: usize) -> T {
        // the items in place are the oldest: positions `0..inline.left`
        // until they are read, which is after every item on the heap
        let inline = self.inline.left;
        // SAFETY: the caller's promise, for one part or the other
        unsafe {
            if k >= inline {
                self.spill.take_at(k - inline)
            } else {
                self.inline.take_at(k)
            }
        }
    }
}

/// A value an `a..b` range steps through: its distance from the range's
/// start, counted in steps. Implemented for every type whose ranges are
/// iterators.
///
/// # Safety
///
/// `steps_from` counts as the range's iterator steps: [`WalkBack`] reads
/// kept items at these distances without a check.
#[doc(hidden)]
pub unsafe trait Stepped: Copy + PartialOrd {
    /// The steps from `start` up to `self` (`self >= start`), or
    /// `usize::MAX` if they do not fit.
    fn steps_from(self, start: Self) -> usize;
}

macro_rules! stepped {
    ($($t:ty => $u:ty),*) => {$(
        // SAFETY: an integer range steps by one
        unsafe impl Stepped for $t {
            #[inline(always)]
            fn steps_from(self, start: Self) -> usize {
                usize::try_from(self.wrapping_sub(start) as $u).unwrap_or(usize::MAX)
            }
        }
    )*};
}

stepped!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize);

// SAFETY: as a range of `char`s steps, over the surrogates
unsafe impl Stepped for char {
    #[inline(always)]
    fn steps_from(self, start: Self) -> usize {
        // a range of `char`s steps over the surrogates
        let (a, b) = (start as u32, self as u32);
        let gap = if a < 0xD800 && b >= 0xE000 { 0x800 } else { 0 };
        (b - a - gap) as usize
    }
}

// SAFETY: an address range steps as the address's number does
unsafe impl Stepped for std::net::Ipv4Addr {
    #[inline(always)]
    fn steps_from(self, start: Self) -> usize {
        u32::from(self).wrapping_sub(u32::from(start)) as usize
    }
}

// SAFETY: as for `Ipv4Addr`
unsafe impl Stepped for std::net::Ipv6Addr {
    #[inline(always)]
    fn steps_from(self, start: Self) -> usize {
        usize::try_from(u128::from(self).wrapping_sub(u128::from(start))).unwrap_or(usize::MAX)
    }
}

/// A range walked backward with the items its forward run kept, each read
/// at its iteration's position.
#[doc(hidden)]
pub struct WalkBack<A, B> {
    range: Range<A>,
    /// the range's start as given: the place of the oldest item
    start: A,
    items: B,
}

impl<A: Stepped, B: Positional> Iterator for WalkBack<A, B>
where
    Range<A>: DoubleEndedIterator<Item = A>,
{
    type Item = (A, B::Item);
    #[inline(always)]
    fn next(&mut self) -> Option<(A, B::Item)> {
        let i = self.range.next_back()?;
        let k = i.steps_from(self.start);
        // SAFETY: a range's values, walked backward, fall from one below
        // its end to its start, each once (`Range`'s iterator is the
        // standard library's: its steps cannot be implemented elsewhere): their distances from the start
        // fall too, each below the count taken back (the distance of the
        // end, `zip_back_range`), so each item is read once
        Some((i, unsafe { self.items.take_at(k) }))
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

/// How many values `a..b` yields.
#[inline(always)]
fn length<A: Stepped>(range: &Range<A>) -> usize {
    if range.start < range.end {
        range.end.steps_from(range.start)
    } else {
        0
    }
}

/// The range `a..b` walked backward, with the items its forward run pushed
/// (one per iteration), last first: `for (i, (x, y)) in zip_back_range(a..b,
/// &mut tape)`. What [`zip_back`](crate::zip_back) does, for a range whose
/// variable tells each item's place.
///
/// # Panics
///
/// If the tape holds fewer items than the range has values.
#[doc(hidden)]
#[inline(always)]
pub fn zip_back_range<A: Stepped, R: Rewind + ?Sized>(
    range: Range<A>,
    tape: &mut R,
) -> WalkBack<A, R::Back<'_>>
where
    Range<A>: DoubleEndedIterator<Item = A>,
{
    let n = length(&range);
    WalkBack {
        start: range.start,
        items: tape.back(n),
        range,
    }
}

/// A tape whose last items can be read oldest first: a `Vec` or a
/// [`Writer`](crate::Writer), whose items lie in one run of slots.
#[doc(hidden)]
pub trait Ahead: Rewind {
    /// Takes back the last `n` items, to be read oldest first.
    ///
    /// # Panics
    ///
    /// If it holds fewer (see [`Rewind::back`]).
    fn ahead(&mut self, n: usize) -> TakenBack<'_, Self::Item>;
}

impl<T> Ahead for Vec<T> {
    #[inline(always)]
    fn ahead(&mut self, n: usize) -> TakenBack<'_, T> {
        self.back(n)
    }
}

impl<T> Ahead for crate::tape::Writer<'_, T> {
    #[inline(always)]
    fn ahead(&mut self, n: usize) -> TakenBack<'_, T> {
        self.back(n)
    }
}

/// A range walked first to last with the items its forward run kept,
/// oldest first.
#[doc(hidden)]
pub struct WalkUp<'a, A, T> {
    range: Range<A>,
    items: TakenBack<'a, T>,
}

impl<A, T> Iterator for WalkUp<'_, A, T>
where
    Range<A>: Iterator<Item = A>,
{
    type Item = (A, T);
    #[inline(always)]
    fn next(&mut self) -> Option<(A, T)> {
        let i = self.range.next()?;
        // SAFETY: `zip_up_range` took back one item for each value of the
        // range, which yields each once (`Range`'s iterator is the
        // standard library's): an item is left for this one.
        Some((i, unsafe { self.items.take_front() }))
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

/// The range `a..b` walked first to last, with the items its forward run
/// pushed (one per iteration), oldest first: `for (i, (x, y)) in
/// zip_up_range(a..b, &mut tape)`. For a loop whose iterations pass
/// nothing back, so that its reverse may run in the order the loop ran.
///
/// # Panics
///
/// If the tape holds fewer items than the range has values.
#[doc(hidden)]
#[inline(always)]
pub fn zip_up_range<A: Stepped, R: Ahead + ?Sized>(
    range: Range<A>,
    tape: &mut R,
) -> WalkUp<'_, A, R::Item>
where
    Range<A>: Iterator<Item = A>,
{
    let n = length(&range);
    WalkUp {
        items: tape.ahead(n),
        range,
    }
}

#[cfg(test)]
mod tests {
    use super::{zip_back_range, zip_up_range, Stepped};
    use crate::tape::{StackTape, Writer};

    #[test]
    fn a_range_walks_back_with_its_items_from_every_tape() {
        // a vector
        let mut tape: Vec<(usize, f64)> = (0..9).map(|k| (k, k as f64 / 2.0)).collect();
        let walked: Vec<(usize, usize)> = zip_back_range(4..9, &mut tape)
            .map(|(i, (k, _))| (i, k))
            .collect();
        assert_eq!(walked, [(8, 8), (7, 7), (6, 6), (5, 5), (4, 4)]);
        assert_eq!(tape.len(), 4);
        // an empty range takes nothing, a backward one too
        let (hi, lo) = (std::hint::black_box(3), std::hint::black_box(1));
        assert_eq!(zip_back_range(hi..lo, &mut tape).count(), 0);
        assert_eq!(zip_back_range(lo..lo, &mut tape).count(), 0);
        assert_eq!(tape.len(), 4);
        // a writer
        let mut kept = Vec::new();
        let mut writer = Writer::new(&mut kept, 6);
        for k in 0..6 {
            writer.push(k * 10);
        }
        let walked: Vec<(i32, i32)> = zip_back_range(-2..4, &mut writer).collect();
        assert_eq!(
            walked,
            [(3, 50), (2, 40), (1, 30), (0, 20), (-1, 10), (-2, 0)]
        );
        // a stack tape, its newest items on the heap
        let mut stack = StackTape::<u8, 3>::new();
        for k in 0..7 {
            stack.push(k);
        }
        let walked: Vec<(u8, u8)> = zip_back_range(10..15, &mut stack).collect();
        assert_eq!(walked, [(14, 6), (13, 5), (12, 4), (11, 3), (10, 2)]);
        assert_eq!(
            (stack.pop(), stack.pop(), stack.pop()),
            (Some(1), Some(0), None)
        );
    }

    #[test]
    fn a_range_walks_up_with_its_items_oldest_first() {
        let mut tape: Vec<(usize, f64)> = (0..9).map(|k| (k, k as f64 / 2.0)).collect();
        let walked: Vec<(usize, usize)> = zip_up_range(4..9, &mut tape)
            .map(|(i, (k, _))| (i, k))
            .collect();
        assert_eq!(walked, [(4, 4), (5, 5), (6, 6), (7, 7), (8, 8)]);
        assert_eq!(tape.len(), 4);
        let (hi, lo) = (std::hint::black_box(3), std::hint::black_box(1));
        assert_eq!(zip_up_range(hi..lo, &mut tape).count(), 0);
        assert_eq!(tape.len(), 4);
        let mut kept = Vec::new();
        let mut writer = Writer::new(&mut kept, 6);
        for k in 0..6 {
            writer.push(k * 10);
        }
        let walked: Vec<(i32, i32)> = zip_up_range(-2..2, &mut writer).collect();
        assert_eq!(walked, [(-2, 20), (-1, 30), (0, 40), (1, 50)]);
        assert_eq!(
            (writer.pop(), writer.pop(), writer.pop()),
            (Some(10), Some(0), None)
        );
        // items not walked are freed with the walk, once
        let item = std::rc::Rc::new(());
        let mut tape: Vec<std::rc::Rc<()>> = (0..5).map(|_| item.clone()).collect();
        {
            let mut walk = zip_up_range(0..4, &mut tape);
            assert!(walk.next().is_some());
        }
        assert_eq!(std::rc::Rc::strong_count(&item), 2);
        assert_eq!(tape.len(), 1);
    }

    #[test]
    fn items_not_walked_are_freed() {
        let item = std::rc::Rc::new(());
        let mut tape: Vec<std::rc::Rc<()>> = (0..5).map(|_| item.clone()).collect();
        {
            let mut walk = zip_back_range(0..4, &mut tape);
            assert!(walk.next().is_some());
            assert!(walk.next().is_some());
        }
        // two read and dropped, two dropped with the walk, one left
        assert_eq!(std::rc::Rc::strong_count(&item), 2);
        assert_eq!(tape.len(), 1);
    }

    #[test]
    #[should_panic(expected = "fewer kept items")]
    fn a_short_tape_panics() {
        let mut tape = vec![1.0, 2.0];
        let _ = zip_back_range(0..3, &mut tape);
    }

    #[test]
    fn steps_are_counted_as_ranges_count_them() {
        assert_eq!(9u8.steps_from(2), 7);
        assert_eq!(3i8.steps_from(-128), 131);
        assert_eq!(u128::MAX.steps_from(0), usize::MAX);
        assert_eq!(i64::MAX.steps_from(i64::MIN), u64::MAX as usize);
        let (a, b) = ('\u{D7FE}', '\u{E001}');
        assert_eq!(b.steps_from(a), (a..b).count());
        assert_eq!('z'.steps_from('a'), 25);
        let (x, y) = (
            std::net::Ipv4Addr::new(10, 0, 0, 250),
            std::net::Ipv4Addr::new(10, 0, 1, 3),
        );
        assert_eq!(y.steps_from(x), (x..y).count());
        let walked: Vec<(char, usize)> = zip_back_range(a..b, &mut vec![0, 1, 2]).collect();
        assert_eq!(walked, [('\u{E000}', 2), ('\u{D7FF}', 1), ('\u{D7FE}', 0)]);
    }
}
