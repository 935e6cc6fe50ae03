//! Python bindings of mpsim-core, built by maturin into `mpsim._core`.
//!
//! The boundary is deliberately narrow: a whole scenario goes in as JSON and
//! whole result tables come out as JSON, so nothing per packet crosses into
//! Python. Every core error becomes a Python exception, and a panic inside the
//! engine (a bug) is caught here and raised as [`InternalError`] instead of
//! reaching the user as a `PanicException`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use mpsim_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "An invalid scenario: the message names the field, the value and what is allowed."
);
create_exception!(
    _core,
    InternalError,
    PyRuntimeError,
    "A broken invariant inside the engine (a bug in mpsim, not in the scenario)."
);

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Config(c) => ConfigError::new_err(c.to_string()),
        Error::Internal(m) => InternalError::new_err(m),
    }
}

fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(InternalError::new_err(format!("the engine panicked: {what}")))
        }
    }
}

/// Runs one scenario given as a JSON string; returns the results as a JSON
/// string. The GIL is released while the simulation runs.
#[pyfunction]
fn run_json(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    py.detach(move || guarded(|| mpsim_core::run_json(&text)))
}

/// Runs one scenario as [`run_json`] does and also reports the wall time of
/// building it and of running it alone, in seconds: `(results_json,
/// build_s, run_s)`. The engine never reads a clock; only this binding does,
/// for benchmarks.
#[pyfunction]
fn run_json_timed(py: Python<'_>, config_json: &str) -> PyResult<(String, f64, f64)> {
    let text = config_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let t0 = Instant::now();
            let cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
            let mut sim = mpsim_core::build::build(&cfg)?;
            let t1 = Instant::now();
            sim.run();
            let run_s = t1.elapsed().as_secs_f64();
            let results = serde_json::to_string(&sim.results())
                .map_err(|e| Error::Internal(format!("serialising results: {e}")))?;
            Ok((results, (t1 - t0).as_secs_f64(), run_s))
        })
    })
}

/// Checks a scenario given as a JSON string without running it.
#[pyfunction]
fn validate_json(py: Python<'_>, config_json: &str) -> PyResult<()> {
    let text = config_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
            mpsim_core::build::build(&cfg)?;
            Ok(())
        })
    })
}

/// The engine's identity: a hash of the core's and the bindings' sources and the locked
/// dependencies, derived when the core was built (`mpsim_core::ENGINE_ID`).
#[pyfunction]
fn engine_id() -> &'static str {
    mpsim_core::ENGINE_ID
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_timed, m)?)?;
    m.add_function(wrap_pyfunction!(engine_id, m)?)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
