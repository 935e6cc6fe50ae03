//! Python bindings of mpsim-core, built by maturin into `mpsim._core`.
//!
//! The boundary is deliberately narrow and crossed once each way: a whole
//! scenario goes in as one JSON document, parsed, validated and built once
//! ([`run`]); what comes back is a [`Run`] that keeps the results in the
//! core and hands over, when asked, the results as one JSON document or a
//! result table as Arrow buffers. Nothing per packet crosses into Python. Every core error becomes a Python exception — an invalid
//! configuration a [`ConfigError`] carrying every problem as a structured
//! [`Problem`] — and a panic inside the engine (a bug) is caught here and
//! raised as [`InternalError`] instead of reaching the user as a
//! `PanicException`. The algorithms a scenario may name, and their
//! parameters, come from the core's registry ([`algorithms_json`]).

mod plugins;

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
    PluginError,
    PyRuntimeError,
    "A plug-in failed: a hook raised (its exception is the cause, with its traceback) or returned a value out of its range."
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
            Stop::Aborted => PluginError::new_err(s.to_string()),
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

/// The outcome of one run, kept in the core until Python asks for a part of
/// it: the results as one JSON document ([`Run::results_json`], which Python
/// parses once into `Results.raw`), any result table in Arrow's columnar
/// layout ([`Run::table`]), the packet captures, and the wall time of the
/// build and of the run alone. Nothing is converted that is not asked for.
#[pyclass(frozen, module = "mpsim._core")]
struct Run {
    results: mpsim_core::RunResults,
    captures: Vec<(String, Vec<u8>)>,
    /// Wall seconds from the configuration's text to the built simulator
    /// (parsing, validation, the build); only this binding reads a clock.
    #[pyo3(get)]
    build_s: f64,
    /// Wall seconds of the run alone.
    #[pyo3(get)]
    run_s: f64,
}

/// One column as Python receives it: `(name, type, nullable, length,
/// null_count, validity, offsets, data)`, the buffers as bytes (`validity`
/// None without nulls, `offsets` None but for strings), laid out as
/// `pyarrow.Array.from_buffers` takes them.
type ColumnBuffers = (
    &'static str,
    &'static str,
    bool,
    usize,
    usize,
    Option<Cow<'static, [u8]>>,
    Option<Cow<'static, [u8]>>,
    Cow<'static, [u8]>,
);

#[pymethods]
impl Run {
    /// The results as a JSON document: the core's nested form (`Results.raw`).
    fn results_json(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| guarded(|| results_json(&self.results)))
    }

    /// One result table by name (`mpsim_core::tables::TABLES`): its columns
    /// as [`ColumnBuffers`], with the core's Arrow types.
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<Vec<ColumnBuffers>> {
        let table = py.detach(|| guarded(|| self.results.table(name)))?;
        Ok(table.columns.into_iter().map(column_buffers).collect())
    }

    /// The packet captures: `[(file_name, pcap_bytes)]` (empty unless asked for).
    fn captures(&self) -> Vec<(String, Cow<'_, [u8]>)> {
        (self.captures.iter())
            .map(|(name, bytes)| (name.clone(), Cow::Borrowed(bytes.as_slice())))
            .collect()
    }
}

fn column_buffers(c: mpsim_core::tables::Column) -> ColumnBuffers {
    let non_empty = |v: Vec<u8>| (!v.is_empty()).then_some(Cow::Owned(v));
    let offsets = (c.ty == mpsim_core::tables::ColumnType::String).then_some(Cow::Owned(c.offsets));
    let (name, ty, data) = (c.name, c.ty.name(), Cow::Owned(c.data));
    (
        name,
        ty,
        c.nullable,
        c.len,
        c.null_count,
        non_empty(c.validity),
        offsets,
        data,
    )
}

fn results_json(results: &mpsim_core::RunResults) -> Result<String, Error> {
    serde_json::to_string(results).map_err(|e| Error::Internal(format!("serialising results: {e}")))
}

/// Runs one scenario given as a JSON string: parsed, validated and built
/// once, then run; returns its [`Run`]. The GIL is released while the
/// simulation runs; Ctrl-C stops it within milliseconds
/// (`KeyboardInterrupt`), and so does `time_limit_s` of wall time
/// (`TimeLimitError`). `progress`, if given, is called as
/// `progress(now_ns, stop_time_ns)` every few milliseconds of the run and at
/// its end, with the GIL held for that call only. With `pcap`, the run also
/// captures its packets (`mpsim_core::pcap`: every traced host and link, or
/// every host that sends or receives TCP when nothing is traced).
#[pyfunction]
#[pyo3(signature = (config_json, time_limit_s=None, progress=None, pcap=false))]
fn run(
    py: Python<'_>,
    config_json: &str,
    time_limit_s: Option<f64>,
    progress: Option<Py<PyAny>>,
    pcap: bool,
) -> PyResult<Run> {
    let t0 = Instant::now();
    let (cfg, host) = parse_with_plugins(py, config_json)?;
    let run = interruptible(py, time_limit_s, progress, move |interrupt| {
        let mut sim = mpsim_core::build::build(&cfg)?;
        if let Some(host) = &host {
            sim.abort = host.abort.clone();
        }
        if pcap {
            sim.observe(Box::new(mpsim_core::pcap::PcapRecorder::of_traced(&sim)));
        }
        let t1 = Instant::now();
        let outcome = sim.run_bounded(interrupt);
        // A plug-in's failure is what stopped the run, whatever the loop says.
        if let Some(failure) = host.as_ref().and_then(|h| h.take_failure()) {
            return Ok(Err(failure));
        }
        outcome.map_err(Error::Stopped)?;
        let run_s = t1.elapsed().as_secs_f64();
        let observer = sim.ctx.observer.as_deref();
        let recorder = observer.and_then(mpsim_core::observe::find::<mpsim_core::pcap::PcapRecorder>);
        let captures = recorder
            .map(|r| r.captures().iter().map(|c| (c.file_name(), c.bytes.clone())).collect())
            .unwrap_or_default();
        Ok(Ok(Run {
            results: sim.results(),
            captures,
            build_s: (t1 - t0).as_secs_f64(),
            run_s,
        }))
    });
    run?
}

/// A configuration given as JSON, with the plug-ins it names loaded and
/// attached (`None` when it names none, so a run of native algorithms
/// touches nothing of Python's).
fn parse_with_plugins(
    py: Python<'_>,
    config_json: &str,
) -> PyResult<(mpsim_core::ScenarioConfig, Option<std::sync::Arc<plugins::Host>>)> {
    let text = config_json.to_owned();
    let mut cfg = py.detach(move || guarded(|| Ok(mpsim_core::ScenarioConfig::from_json(&text)?)))?;
    if !plugins::names_any(&cfg) {
        return Ok((cfg, None));
    }
    let host = plugins::Host::attach(py, &mut cfg)?;
    Ok((cfg, Some(host)))
}

/// The [`Run`] of stored results (the JSON document `Run.results_json`
/// gave), for their tables.
#[pyfunction]
fn stored_run(py: Python<'_>, results_json: &str) -> PyResult<Run> {
    let text = results_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let results = serde_json::from_str(&text).map_err(|e| Error::Internal(format!("reading results: {e}")))?;
            Ok(Run {
                results,
                captures: Vec::new(),
                build_s: 0.0,
                run_s: 0.0,
            })
        })
    })
}

/// Checks a scenario given as a JSON string without building its simulator
/// (`mpsim_core::build::check`): every problem of its fields, then its
/// estimated cost against its limits. Returns the estimate, `(events,
/// trace_rows)` (docs/scenarios.md, Limits).
#[pyfunction]
fn check_json(py: Python<'_>, config_json: &str) -> PyResult<(f64, f64)> {
    let (cfg, _host) = parse_with_plugins(py, config_json)?;
    py.detach(move || {
        guarded(|| {
            let est = mpsim_core::build::check(&cfg)?;
            Ok((est.events(), est.trace_rows))
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

/// The TCP options a flow may set and each profile's defaults, as JSON:
/// `{"options": [{"name", "kind", "values", "param", "doc"}], "profiles":
/// {profile: params}, "default_profile"}`. The options are `TcpOptions::schema` (derived from
/// the core's struct); a profile's params are what a TCP flow of that
/// profile runs with nothing else set (`build::profile_params`), typed as
/// `resolved_json` writes them, where each option's `param` path reads its
/// default.
#[pyfunction]
fn tcp_options_json() -> PyResult<String> {
    guarded(|| {
        let options = mpsim_core::config::TcpOptions::schema();
        let mut profiles = serde_json::Map::new();
        let names = options.iter().find(|o| o.name == "profile").map(|o| o.values.clone());
        for name in names.unwrap_or_default() {
            let profile: mpsim_core::config::Profile = serde_json::from_value(name.clone().into())
                .map_err(|e| Error::Internal(format!("profile {name}: {e}")))?;
            let params = serde_json::to_value(mpsim_core::build::profile_params(profile))
                .map_err(|e| Error::Internal(format!("profile {name}: {e}")))?;
            profiles.insert(name, params);
        }
        let default_profile = mpsim_core::config::TcpOptions::default().profile;
        let document =
            serde_json::json!({ "options": options, "profiles": profiles, "default_profile": default_profile });
        Ok(document.to_string())
    })
}

/// What a scenario given as a JSON string resolves to, per TCP flow and
/// MPTCP connection (a sequence's flows once): `[{"name", "kind",
/// "profile", "tcp", "cc", "slow_start", "initiator"}]` and, for MPTCP, the
/// packet `"scheduler"`, each written out in full as
/// typed JSON: every TCP parameter of the profile with the flow's overrides
/// applied (durations in nanoseconds, unset values null), and the
/// congestion control and slow start that run, with every parameter.
/// Raises `ConfigError` as `check_json` does; builds no simulator.
#[pyfunction]
fn resolved_json(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let (cfg, _host) = parse_with_plugins(py, config_json)?;
    py.detach(move || {
        guarded(|| {
            mpsim_core::build::check(&cfg)?;
            let tcp = cfg.tcp_flows.iter().map(|f| {
                let resolved = mpsim_core::build::resolve_tcp_flow(f);
                (&f.name, "tcp", &f.tcp, &f.cc, f.initiator, None, resolved)
            });
            let mptcp = cfg.mptcp_connections.iter().map(|m| {
                let scheduler = match &m.scheduler_plugin {
                    Some(p) => serde_json::json!({"type": "python", "class": p.spec.class, "params": p.spec.params, "source": p.spec.source}),
                    None => serde_json::json!(m.scheduler.unwrap_or(m.tcp.profile.default_scheduler())),
                };
                let resolved = mpsim_core::build::resolve_mptcp(m);
                (&m.name, "mptcp", &m.tcp, &m.cc, m.initiator, Some(scheduler), resolved)
            });
            let mut flows = Vec::new();
            for (name, kind, options, cc, initiator, scheduler, resolved) in tcp.chain(mptcp) {
                // A flow without `cc` runs its profile's default, with that algorithm's defaults.
                let cc = match cc {
                    Some(cc) => cc.clone(),
                    None => serde_json::from_value(serde_json::json!({ "type": resolved.cc.name() }))
                        .map_err(|e| Error::Internal(format!("the defaults of {}: {e}", resolved.cc.name())))?,
                };
                flows.push(serde_json::json!({
                    "name": name,
                    "kind": kind,
                    "profile": options.profile,
                    "tcp": resolved.params,
                    "cc": cc,
                    "slow_start": resolved.slow_start,
                    "initiator": initiator,
                }));
                if let Some(scheduler) = scheduler {
                    flows.last_mut().expect("just pushed")["scheduler"] = serde_json::json!(scheduler);
                }
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(stored_run, m)?)?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_function(wrap_pyfunction!(engine_id, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms_json, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_json, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_options_json, m)?)?;
    m.add_class::<Run>()?;
    m.add_class::<Problem>()?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("TimeLimitError", m.py().get_type::<TimeLimitError>())?;
    m.add("PluginError", m.py().get_type::<PluginError>())?;
    m.add_class::<plugins::Subflow>()?;
    m.add_class::<plugins::SchedulerSubflow>()?;
    m.add_class::<plugins::Segment>()?;
    m.add("TABLES", mpsim_core::tables::TABLES.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
