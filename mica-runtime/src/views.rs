//! What a slice view rewritten as indices still checks: its bounds where it
//! is made, and the sizes `chunks`, `chunks_exact` and `windows` refuse.

/// Panics as `&x[lo..hi]` does on an `x` of `len` elements when the range
/// is not inside it.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn view_bounds(lo: usize, hi: usize, len: usize) {
    if lo > hi {
        panic!("slice index starts at {lo} but ends at {hi}");
    }
    if hi > len {
        panic!("range end index {hi} out of range for slice of length {len}");
    }
}

/// How many chunks `x.chunks(size)` yields for `len` elements.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn chunks_count(len: usize, size: usize) -> usize {
    assert!(size != 0, "chunk size must be non-zero");
    len.div_ceil(size)
}

/// How many chunks `x.chunks_exact(size)` yields for `len` elements.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn chunks_exact_count(len: usize, size: usize) -> usize {
    assert!(size != 0, "chunk size must be non-zero");
    len / size
}

/// How many windows `x.windows(size)` yields for `len` elements.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub fn windows_count(len: usize, size: usize) -> usize {
    assert!(size != 0, "window size must be non-zero");
    (len + 1).saturating_sub(size)
}

#[cfg(test)]
mod tests {
    use super::{chunks_count, chunks_exact_count, view_bounds, windows_count};

    #[test]
    fn counts_agree_with_the_standard_library() {
        for len in 0..12 {
            let x: Vec<usize> = (0..len).collect();
            for size in 1..6 {
                assert_eq!(chunks_count(len, size), x.chunks(size).count());
                assert_eq!(chunks_exact_count(len, size), x.chunks_exact(size).count());
                assert_eq!(windows_count(len, size), x.windows(size).count());
            }
        }
    }

    #[test]
    fn bounds_panic_where_slicing_panics() {
        let x = [0.0; 4];
        for lo in 0..7 {
            for hi in 0..7 {
                let sliced = std::panic::catch_unwind(|| x[lo..hi].len()).is_ok();
                let checked = std::panic::catch_unwind(|| view_bounds(lo, hi, x.len())).is_ok();
                assert_eq!(sliced, checked, "{lo}..{hi}");
            }
        }
        assert!(std::panic::catch_unwind(|| chunks_count(3, 0)).is_err());
        assert!(std::panic::catch_unwind(|| windows_count(3, 0)).is_err());
    }
}
