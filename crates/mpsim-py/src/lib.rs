//! Python bindings of mpsim-core, built by maturin into `mpsim._core`.
//!
//! The boundary is deliberately narrow: a whole scenario goes in as JSON and
//! whole result tables come out as JSON, so nothing per packet crosses into
//! Python. Every core error becomes a Python exception — an invalid
//! configuration a [`ConfigError`] carrying every problem as a structured
//! [`Problem`] — and a panic inside the engine (a bug) is caught here and
//! raised as [`InternalError`] instead of reaching the user as a
//! `PanicException`. The algorithms a scenario may name, and their
//! parameters, come from the core's registry ([`algorithms_json`]).

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use mpsim_core::limits::{Interrupt, Stop};
use mpsim_core::time::SimTime;
use mpsim_core::{ConfigErrors, Error};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The engine's memory comes from mimalloc rather than the C library's
/// malloc: it backs its blocks with transparent huge pages where the system
/// allows, which a large network's state, reached in no order, needs (a
/// 1 024-host fat-tree runs about a quarter faster; docs/performance.md).
/// Python's own objects are not affected.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

create_exception!(
    _core,
    TimeLimitError,
    PyRuntimeError,
    "A run stopped by its wall-time limit; the message says how far it had come."
);

/// One problem of a configuration: the path of the field, the value found,
/// what is allowed and the whole sentence.
#[pyclass(frozen, get_all, module = "mpsim._core")]
struct Problem {
    path: String,
    value: String,
    allowed: String,
    message: String,
}

#[pymethods]
impl Problem {
    fn __repr__(&self) -> String {
        format!(
            "Problem(path={:?}, value={:?}, allowed={:?}, message={:?})",
            self.path, self.value, self.allowed, self.message
        )
    }
}

/// A `ConfigError` whose `problems` attribute lists every problem found.
fn config_error(errors: &ConfigErrors) -> PyErr {
    let err = ConfigError::new_err(errors.to_string());
    Python::attach(|py| {
        let problems: Vec<Problem> = errors
            .iter()
            .map(|e| Problem {
                path: e.path.clone(),
                value: e.value.clone(),
                allowed: e.allowed.clone(),
                message: e.message.clone(),
            })
            .collect();
        match err.value(py).setattr("problems", problems) {
            Ok(()) => err,
            Err(e) => e,
        }
    })
}

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Config(c) => config_error(&c),
        Error::Internal(m) => InternalError::new_err(m),
        Error::Stopped(s) => match s.why {
            // The limits of the configuration: the message names the field to raise.
            Stop::EventLimit { .. } | Stop::TraceLimit { .. } => ConfigError::new_err(s.to_string()),
            Stop::TimeLimit { .. } => TimeLimitError::new_err(s.to_string()),
            Stop::Interrupted => PyKeyboardInterrupt::new_err(s.to_string()),
        },
    }
}

/// Asked by the engine every few milliseconds: runs Python's signal handlers
/// (so Ctrl-C raises `KeyboardInterrupt`, which is kept to be raised again
/// once the engine has stopped), watches the wall-time limit and hands the
/// simulated time reached to the caller's progress callback, if any.
struct PythonInterrupt {
    deadline: Option<(Instant, f64)>,
    raised: Option<PyErr>,
    /// Called as `progress(now_ns, stop_time_ns)` at every pause of the run
    /// loop and at its end.
    progress: Option<Py<PyAny>>,
}

impl PythonInterrupt {
    fn new(time_limit_s: Option<f64>, progress: Option<Py<PyAny>>) -> Self {
        PythonInterrupt {
            deadline: time_limit_s.map(|s| (Instant::now() + Duration::from_secs_f64(s), s)),
            raised: None,
            progress,
        }
    }
}

impl Interrupt for PythonInterrupt {
    fn poll(&mut self) -> Option<Stop> {
        if let Some((deadline, limit_s)) = self.deadline {
            if Instant::now() >= deadline {
                return Some(Stop::TimeLimit { limit_s });
            }
        }
        if self.raised.is_some() {
            return Some(Stop::Interrupted); // the progress callback raised
        }
        if let Err(e) = Python::attach(|py| py.check_signals()) {
            self.raised = Some(e);
            return Some(Stop::Interrupted);
        }
        None
    }

    fn progress(&mut self, now: SimTime, stop_time: SimTime) {
        if let (Some(callback), None) = (&self.progress, &self.raised) {
            if let Err(e) = Python::attach(|py| callback.call1(py, (now.0, stop_time.0)).map(drop)) {
                self.raised = Some(e);
            }
        }
    }
}

fn check_time_limit(time_limit_s: Option<f64>) -> PyResult<()> {
    match time_limit_s {
        Some(s) if !(s.is_finite() && s > 0.0 && s < 1e9) => Err(ConfigError::new_err(format!(
            "time_limit: must be a positive number of seconds below 1e9, got {s}"
        ))),
        _ => Ok(()),
    }
}

/// Runs `f` with the GIL released and an interrupt for Ctrl-C, the time
/// limit and the progress callback; an exception of a signal handler or of
/// the callback is raised as it was raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    time_limit_s: Option<f64>,
    progress: Option<Py<PyAny>>,
    f: impl FnOnce(&mut dyn Interrupt) -> Result<T, Error> + Send,
) -> PyResult<T> {
    check_time_limit(time_limit_s)?;
    let mut interrupt = PythonInterrupt::new(time_limit_s, progress);
    let out = py.detach(|| guarded(|| f(&mut interrupt)));
    match interrupt.raised.take() {
        Some(raised) => Err(raised),
        None => out,
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
/// string. The GIL is released while the simulation runs; Ctrl-C stops it
/// within milliseconds (`KeyboardInterrupt`), and so does `time_limit_s` of
/// wall time (`TimeLimitError`). `progress`, if given, is called as
/// `progress(now_ns, stop_time_ns)` every few milliseconds of the run and at
/// its end, with the GIL held for that call only.
#[pyfunction]
#[pyo3(signature = (config_json, time_limit_s=None, progress=None))]
fn run_json(
    py: Python<'_>,
    config_json: &str,
    time_limit_s: Option<f64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let text = config_json.to_owned();
    interruptible(py, time_limit_s, progress, move |interrupt| {
        mpsim_core::run_json_interruptible(&text, interrupt)
    })
}

/// A packet capture's file name and contents (bytes in Python).
type PcapFile = (String, Cow<'static, [u8]>);

/// Runs one scenario as [`run_json`] does and also captures its packets
/// (`mpsim_core::pcap`: every traced host and link, or every host that
/// sends or receives TCP when nothing is traced): `(results_json,
/// [(file_name, pcap_bytes)])`.
#[pyfunction]
#[pyo3(signature = (config_json, time_limit_s=None, progress=None))]
fn run_json_pcap(
    py: Python<'_>,
    config_json: &str,
    time_limit_s: Option<f64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Vec<PcapFile>)> {
    let text = config_json.to_owned();
    interruptible(py, time_limit_s, progress, move |interrupt| {
        let cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
        let mut sim = mpsim_core::build::build(&cfg)?;
        sim.observe(Box::new(mpsim_core::pcap::PcapRecorder::of_traced(&sim)));
        sim.run_bounded(interrupt).map_err(Error::Stopped)?;
        let results =
            serde_json::to_string(&sim.results()).map_err(|e| Error::Internal(format!("serialising results: {e}")))?;
        let observer = sim.ctx.observer.as_deref();
        let recorder = observer.and_then(mpsim_core::observe::find::<mpsim_core::pcap::PcapRecorder>);
        let captures = recorder
            .map(|r| {
                r.captures()
                    .iter()
                    .map(|c| (c.file_name(), Cow::Owned(c.bytes.clone())))
                    .collect()
            })
            .unwrap_or_default();
        Ok((results, captures))
    })
}

/// Runs one scenario as [`run_json`] does and also reports the wall time of
/// building it and of running it alone, in seconds: `(results_json,
/// build_s, run_s)`. The engine never reads a clock; only this binding does,
/// for benchmarks.
#[pyfunction]
fn run_json_timed(py: Python<'_>, config_json: &str) -> PyResult<(String, f64, f64)> {
    let text = config_json.to_owned();
    interruptible(py, None, None, move |interrupt| {
        let t0 = Instant::now();
        let cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
        let mut sim = mpsim_core::build::build(&cfg)?;
        let t1 = Instant::now();
        sim.run_bounded(interrupt).map_err(Error::Stopped)?;
        let run_s = t1.elapsed().as_secs_f64();
        let results =
            serde_json::to_string(&sim.results()).map_err(|e| Error::Internal(format!("serialising results: {e}")))?;
        Ok((results, (t1 - t0).as_secs_f64(), run_s))
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

/// The registry's algorithms as JSON: `{"cc": [[name, {parameter:
/// default}], ...], "slow_start": [...]}`, in the registry's order.
#[pyfunction]
fn algorithms_json() -> String {
    serde_json::json!({
        "cc": mpsim_core::cc::CcConfig::schema(),
        "slow_start": mpsim_core::slowstart::SlowStartConfig::schema(),
    })
    .to_string()
}

/// Every result table of a run's results (JSON, as `run_json` returns them),
/// as JSON: `[{"name", "columns": [{"name", "type", "nullable", "values"}]}]`,
/// the columns and their Arrow types defined by the core (`mpsim_core::tables`).
#[pyfunction]
fn tables_json(py: Python<'_>, results_json: &str) -> PyResult<String> {
    let text = results_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let results: mpsim_core::RunResults =
                serde_json::from_str(&text).map_err(|e| Error::Internal(format!("reading results: {e}")))?;
            serde_json::to_string(&results.tables()).map_err(|e| Error::Internal(format!("serialising tables: {e}")))
        })
    })
}

/// What a scenario given as a JSON string resolves to, per TCP flow and
/// MPTCP connection (a sequence's flows once): `[{"name", "kind",
/// "profile", "tcp", "cc", "slow_start"}]`, each written out in full as
/// typed JSON: every TCP parameter of the profile with the flow's overrides
/// applied (durations in nanoseconds, unset values null), and the
/// congestion control and slow start that run, with every parameter.
/// Raises `ConfigError` as `validate_json` does.
#[pyfunction]
fn resolved_json(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
            let sim = mpsim_core::build::build(&cfg)?;
            let mut given = std::collections::HashMap::new();
            for f in &cfg.tcp_flows {
                given.insert(f.name.as_str(), ("tcp", &f.tcp, &f.cc, None));
            }
            for m in &cfg.mptcp_connections {
                given.insert(m.name.as_str(), ("mptcp", &m.tcp, &m.cc, Some(&m.slow_start)));
            }
            let mut seen = std::collections::HashSet::new();
            let mut flows = Vec::new();
            for c in &sim.connections {
                let name = c.name.split('#').next().unwrap_or(&c.name);
                if !seen.insert(name) {
                    continue;
                }
                let &(kind, options, cc, slow_start) = given
                    .get(name)
                    .ok_or_else(|| Error::Internal(format!("connection {name} has no flow")))?;
                // A flow without `cc` runs its profile's default, with that algorithm's defaults.
                let cc = match cc {
                    Some(cc) => cc.clone(),
                    None => serde_json::from_value(serde_json::json!({ "type": c.cc.name() }))
                        .map_err(|e| Error::Internal(format!("the defaults of {}: {e}", c.cc.name())))?,
                };
                let p = &c.params;
                let slow_start =
                    slow_start
                        .cloned()
                        .unwrap_or_default()
                        .with_early_exit(p.hystart, p.hystart_linux, p.hystart_ns3);
                flows.push(serde_json::json!({
                    "name": name,
                    "kind": kind,
                    "profile": options.profile,
                    "tcp": p,
                    "cc": cc,
                    "slow_start": slow_start,
                }));
            }
            Ok(serde_json::Value::from(flows).to_string())
        })
    })
}

/// The engine's identity: a hash of the core's and the bindings' sources and the locked
/// dependencies, derived when the core was built (`mpsim_core::ENGINE_ID`).
#[pyfunction]
fn engine_id() -> &'static str {
    mpsim_core::ENGINE_ID
}

/// The estimated cost of a scenario given as a JSON string, without running
/// it: `(events, trace_rows)` (docs/scenarios.md, Limits). Raises
/// `ConfigError` as `validate_json` does, a refusal by the limits included.
#[pyfunction]
fn estimate_json(py: Python<'_>, config_json: &str) -> PyResult<(f64, f64)> {
    let text = config_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let mut cfg = mpsim_core::ScenarioConfig::from_json(&text)?;
            // Estimate without refusing: the limits are checked afterwards.
            let limits = cfg.limits;
            cfg.limits.max_events = Some(u64::MAX);
            cfg.limits.max_trace_rows = Some(u64::MAX);
            let sim = mpsim_core::build::build(&cfg)?;
            let est = mpsim_core::limits::estimate(&cfg, &sim);
            cfg.limits = limits;
            mpsim_core::limits::check(&cfg, &est)?;
            Ok((est.events(), est.trace_rows))
        })
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_timed, m)?)?;
    m.add_function(wrap_pyfunction!(engine_id, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_json, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms_json, m)?)?;
    m.add_function(wrap_pyfunction!(tables_json, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_json, m)?)?;
    m.add_class::<Problem>()?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("TimeLimitError", m.py().get_type::<TimeLimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
