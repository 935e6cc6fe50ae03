//! Cache hints. The event loop of a large network asks the processor to
//! start loading what the next event will touch while it handles the
//! current one (see `Simulator::advance`); a hint changes no result, only
//! how long the run takes.

/// Asks the processor to bring the cache line that holds `value` into its
/// caches. Returns at once; does nothing on other architectures.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint. It cannot fault, whatever the address,
    // and changes no memory the program sees.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Size of a cache line on the processors this hint is for.
pub const LINE_BYTES: usize = 64;

/// Asks for every cache line of the first `bytes` bytes of `value`.
#[inline(always)]
pub fn prefetch_lines<T>(value: &T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = (value as *const T).cast::<u8>();
        let end = start.wrapping_add(bytes.min(std::mem::size_of::<T>()));
        let mut at = (start as usize & !(LINE_BYTES - 1)) as *const u8;
        while at < end {
            // SAFETY: as in `prefetch`; addresses need not be valid.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(at.cast());
            }
            at = at.wrapping_add(LINE_BYTES);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, bytes);
}
