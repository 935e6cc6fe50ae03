//! Transcendental functions for the engine.
//!
//! `f64::ln`, `powf` and `cbrt` call the platform's C library, whose last-bit
//! results differ between platforms. The engine uses these pure-Rust ports of
//! musl's libm instead, so the same seed gives the same numbers everywhere.
//! (`sqrt` is exactly rounded by IEEE 754 and needs no wrapper.)

#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}
