//! Plug-ins: a congestion control, a slow start or a packet scheduler
//! written in Python (`mpsim.plugins`), run by the engine through the core's
//! traits (`mpsim_core::plugin`).
//!
//! A scenario names a plug-in by its class (`{type = "python", class =
//! "file.py:Class", ...}`); [`Host::attach`] asks the Python package for a
//! factory of each one named and attaches it to the parsed configuration.
//! The engine then calls the instances' hooks with the GIL taken for each
//! call only. A hook sees its subflows through views ([`Subflow`],
//! [`Connection`]; [`SchedulerSubflow`] for a scheduler) that read the
//! engine's state in place while the hook runs and refuse to be read once it
//! has returned; what it writes (a window) is checked as it is written.
//!
//! A hook that raises, or that returns a value out of its range, is the
//! run's failure: the first one is kept as a `PluginError` (the plug-in's own
//! exception chained as its cause, with its traceback), the run's
//! [`Abort`] is raised so that the event loop stops after the event in
//! progress, and no hook is called again. Ctrl-C inside a hook is kept as the
//! `KeyboardInterrupt` it is.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mpsim_core::cc::{AckInfo, CcPluginFactory, CcSetup, CongestionAvoidance, Reno, SubflowCc};
use mpsim_core::plugin::{Abort, PluginSpec};
use mpsim_core::rng::{RngStream, StreamDomain};
use mpsim_core::slowstart::{SlowStart, SlowStartConfig, SsPluginFactory, Standard, StandardConfig};
use mpsim_core::time::SimTime;
use mpsim_core::transport::scheduler::{
    Chunk, DynSubflows, ExternalSchedule, MinRtt, Schedule, SchedulerPluginFactory, Subflows,
};
use mpsim_core::ScenarioConfig;
use pyo3::exceptions::{PyException, PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyTuple};

use crate::PluginError;

/// Whether `cfg` names a plug-in.
pub fn names_any(cfg: &ScenarioConfig) -> bool {
    let cc = |c: &Option<mpsim_core::cc::CcConfig>| matches!(c, Some(mpsim_core::cc::CcConfig::Plugin { .. }));
    cfg.tcp_flows.iter().any(|f| cc(&f.cc))
        || cfg.mptcp_connections.iter().any(|m| {
            cc(&m.cc) || matches!(m.slow_start, SlowStartConfig::Plugin { .. }) || m.scheduler_plugin.is_some()
        })
}

/// What the plug-ins of one run share: its first failure, its stop signal
/// and the seed their random streams derive from.
pub struct Host {
    failure: Mutex<Option<PyErr>>,
    pub abort: Abort,
    seed: u64,
    /// Instances made so far: each takes the next random stream.
    instances: AtomicU64,
}

/// Where a hook was called: the subflow and the simulated time.
#[derive(Clone, Copy)]
struct At(Option<usize>, Option<SimTime>);

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.0, self.1) {
            (Some(r), Some(t)) => write!(f, "subflow {r} at {:.6} s", t.as_secs_f64()),
            (Some(r), None) => write!(f, "subflow {r}"),
            (None, Some(t)) => write!(f, "at {:.6} s", t.as_secs_f64()),
            (None, None) => write!(f, "while it was made"),
        }
    }
}

impl Host {
    /// Loads every plug-in `cfg` names (through `mpsim.plugins.factory`) and
    /// attaches its factory; a class that cannot be loaded, or parameters
    /// its declaration refuses, raise here, before anything runs.
    pub fn attach(py: Python<'_>, cfg: &mut ScenarioConfig) -> PyResult<Arc<Host>> {
        let host = Arc::new(Host {
            failure: Mutex::new(None),
            abort: Abort::default(),
            seed: cfg.seed,
            instances: AtomicU64::new(0),
        });
        let module = py.import("mpsim.plugins")?;
        let load = |kind: &str, path: String, spec: &PluginSpec| -> PyResult<Factory> {
            let params = PyDict::new(py);
            for (k, v) in &spec.params {
                params.set_item(k, json_to_py(py, v)?)?;
            }
            let make = module.call_method1("factory", (kind, spec.class.as_str(), params, path))?;
            Ok(Factory {
                host: host.clone(),
                make: make.unbind(),
                who: format!("the {kind} {}", spec.class),
            })
        };
        let attach_cc = |cc: &mut Option<mpsim_core::cc::CcConfig>, path: String| -> PyResult<()> {
            if let Some(mpsim_core::cc::CcConfig::Plugin { config }) = cc {
                let factory: Arc<dyn CcPluginFactory> = Arc::new(load("congestion control", path, &config.spec)?);
                config.factory = Some(factory);
            }
            Ok(())
        };
        for (i, f) in cfg.tcp_flows.iter_mut().enumerate() {
            attach_cc(&mut f.cc, format!("tcp_flows[{i}].cc"))?;
        }
        for (i, m) in cfg.mptcp_connections.iter_mut().enumerate() {
            let path = format!("mptcp_connections[{i}]");
            attach_cc(&mut m.cc, format!("{path}.cc"))?;
            if let SlowStartConfig::Plugin { config } = &mut m.slow_start {
                let factory: Arc<dyn SsPluginFactory> =
                    Arc::new(load("slow start", format!("{path}.slow_start"), &config.spec)?);
                config.factory = Some(factory);
            }
            if let Some(config) = &mut m.scheduler_plugin {
                let factory: Arc<dyn SchedulerPluginFactory> =
                    Arc::new(load("scheduler", format!("{path}.scheduler"), &config.spec)?);
                config.factory = Some(factory);
            }
        }
        Ok(host)
    }

    /// The run's failure, if a plug-in failed.
    pub fn take_failure(&self) -> Option<PyErr> {
        self.failure.lock().ok()?.take()
    }

    fn failed(&self) -> bool {
        self.abort.is_raised()
    }

    /// Keeps the first failure and stops the run.
    fn fail(&self, err: PyErr) {
        if let Ok(mut slot) = self.failure.lock() {
            slot.get_or_insert(err);
        }
        self.abort.raise();
    }

    /// A hook raised `err`: a `PluginError` naming the plug-in, the hook and
    /// where, caused by `err` (Ctrl-C and other exceptions that are not
    /// errors, such as `SystemExit`, and the CLI's own Ctrl-C, marked
    /// `mpsim_interruption`, are kept as they are).
    fn raised(&self, py: Python<'_>, err: PyErr, who: &str, hook: &str, at: At) {
        let interruption = err.value(py).hasattr("mpsim_interruption").unwrap_or(false);
        if !err.is_instance_of::<PyException>(py) || interruption {
            return self.fail(err);
        }
        let what = err.value(py).repr().map(|r| r.to_string()).unwrap_or_default();
        let e = PluginError::new_err(format!("{who}: {hook} raised {what} ({at})"));
        e.set_cause(py, Some(err));
        self.fail(e);
    }

    /// A hook returned a value out of its range.
    fn bad_value(&self, value: &Bound<'_, PyAny>, who: &str, hook: &str, at: At, allowed: &str) {
        let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
        self.fail(PluginError::new_err(format!(
            "{who}: {hook} returned {shown} ({at}); expected {allowed}"
        )));
    }

    /// Calls `hook` with `args`, then `check`s what it returned; `None`
    /// when it failed (the failure is kept).
    fn call<'py, T>(
        &self,
        py: Python<'py>,
        (who, hook_name): (&str, &str),
        hook: &Py<PyAny>,
        args: impl pyo3::call::PyCallArgs<'py>,
        at: At,
        check: impl FnOnce(&Bound<'py, PyAny>) -> Result<T, &'static str>,
    ) -> Option<T> {
        match hook.bind(py).call1(args) {
            Ok(value) => match check(&value) {
                Ok(v) => Some(v),
                Err(allowed) => {
                    self.bad_value(&value, who, hook_name, at, allowed);
                    None
                }
            },
            Err(e) => {
                self.raised(py, e, who, hook_name, at);
                None
            }
        }
    }
}

/// A JSON value of a plug-in's parameters as a Python object.
fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}

/// A Python class's factory, as `mpsim.plugins.factory` gives it: called
/// with a seed and the flow's settings, it returns a new instance and its
/// hooks (each a bound method, or `None` where the class keeps the base
/// class's default, which the engine then runs itself).
struct Factory {
    host: Arc<Host>,
    make: Py<PyAny>,
    who: String,
}

/// A new instance's hooks, in the order of `names`; `None` for each when
/// making it failed (the failure is kept and the run stops). `settings`
/// fills the flow's settings the instance is told (`mpsim.plugins`).
fn instantiate<const N: usize>(
    f: &Factory,
    settings: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
    names: [&str; N],
) -> [Option<Py<PyAny>>; N] {
    let index = f.host.instances.fetch_add(1, Ordering::Relaxed);
    let seed = RngStream::derive(f.host.seed, StreamDomain::Plugin, index).next_u64();
    Python::attach(|py| {
        let made = (|| -> PyResult<[Option<Py<PyAny>>; N]> {
            let given = PyDict::new(py);
            settings(&given)?;
            let hooks = f.make.bind(py).call1((seed, given, names.to_vec()))?;
            let mut out: [Option<Py<PyAny>>; N] = std::array::from_fn(|_| None);
            for (slot, hook) in out.iter_mut().zip(hooks.try_iter()?) {
                let hook = hook?;
                *slot = (!hook.is_none()).then(|| hook.unbind());
            }
            Ok(out)
        })();
        made.unwrap_or_else(|e| {
            f.host.raised(py, e, &f.who, "__init__", At(None, None));
            std::array::from_fn(|_| None)
        })
    })
}

/// `value` as a number of bytes of at least `min`: an int, or a finite
/// float rounded down (not a bool).
fn to_bytes(value: &Bound<'_, PyAny>, min: u64) -> Option<u64> {
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<pyo3::types::PyBool>() {
        return value.extract::<u64>().ok().filter(|&n| n >= min);
    }
    if value.is_instance_of::<PyFloat>() {
        let f = value.extract::<f64>().ok()?;
        return (f.is_finite() && f >= min as f64 && f < 1.8e19).then(|| f.floor() as u64);
    }
    None
}

/// What a window may be, for the messages.
const WINDOW: &str = "a number of bytes >= 1 (an int, or a finite float, which is rounded down)";
const THRESHOLD: &str = "a number of bytes >= 0 (an int, or a finite float, which is rounded down)";

/// Sets `field` of the subflow seen by `scope` at `r` from a value a hook
/// assigned, checked as the field requires.
fn assign(
    scope: &CcScope,
    r: usize,
    field: &str,
    value: &Bound<'_, PyAny>,
    set: fn(&mut SubflowCc, u64),
) -> PyResult<()> {
    let (min, allowed) = if field == "cwnd" { (1, WINDOW) } else { (0, THRESHOLD) };
    let shown = || value.repr().map(|s| s.to_string()).unwrap_or_default();
    let Some(bytes) = to_bytes(value, min) else {
        let why = format!("sf.{field} = {}: must be {allowed}", shown());
        return Err(
            if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
                PyValueError::new_err(why)
            } else {
                PyTypeError::new_err(why)
            },
        );
    };
    scope.write(r, field, |sf| set(sf, bytes))
}

/// The subflows a congestion control's or slow start's hook sees: set by
/// [`CcScope::enter`] for the duration of one call.
struct CcScope {
    ptr: Cell<*mut SubflowCc>,
    len: Cell<usize>,
    /// Whether the hook may change windows (not `ssthresh`, which returns it).
    writable: Cell<bool>,
    /// The view of each subflow, made once.
    views: RefCell<Vec<Py<Subflow>>>,
    /// The views of the first `len` subflows (`sf.connection`), remade when
    /// the number changes.
    connection: RefCell<Option<Py<PyTuple>>>,
}

/// Clears the scope when the hook returns (or unwinds).
struct Leave<'a>(&'a CcScope);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.ptr.set(std::ptr::null_mut());
        self.0.len.set(0);
    }
}

impl CcScope {
    fn new() -> Rc<Self> {
        Rc::new(CcScope {
            ptr: Cell::new(std::ptr::null_mut()),
            len: Cell::new(0),
            writable: Cell::new(false),
            views: RefCell::new(Vec::new()),
            connection: RefCell::new(None),
        })
    }

    /// Runs `f` with the subflows `ptr[..len]` visible to the views. The
    /// caller holds them borrowed (mutably if `writable`) for the call.
    fn enter<R>(&self, ptr: *mut SubflowCc, len: usize, writable: bool, f: impl FnOnce() -> R) -> R {
        self.ptr.set(ptr);
        self.len.set(len);
        self.writable.set(writable);
        let _leave = Leave(self);
        f()
    }

    /// The view of subflow `r` of `len`, and the connection's tuple sized.
    fn view(self: &Rc<Self>, py: Python<'_>, r: usize, len: usize) -> PyResult<Py<Subflow>> {
        let mut views = self.views.borrow_mut();
        while views.len() < len {
            let index = views.len();
            let scope = self.clone();
            views.push(Py::new(py, Subflow { scope, index })?);
        }
        let mut connection = self.connection.borrow_mut();
        if connection.as_ref().is_none_or(|t| t.bind(py).len() != len) {
            *connection = Some(PyTuple::new(py, views[..len].iter().map(|v| v.clone_ref(py)))?.unbind());
        }
        Ok(views[r.min(len.saturating_sub(1))].clone_ref(py))
    }

    fn read<T>(&self, r: usize, f: impl FnOnce(&SubflowCc) -> T) -> PyResult<T> {
        let ptr = self.ptr.get();
        if ptr.is_null() {
            return Err(PyRuntimeError::new_err(
                "a subflow is readable only while the hook it was given to runs",
            ));
        }
        if r >= self.len.get() {
            return Err(PyIndexError::new_err(format!("subflow {r} has left the connection")));
        }
        // SAFETY: `enter` set `ptr` to `len` subflows that its caller holds
        // borrowed and does not touch until the hook returns.
        Ok(f(unsafe { &*ptr.add(r) }))
    }

    fn write(&self, r: usize, field: &str, f: impl FnOnce(&mut SubflowCc)) -> PyResult<()> {
        if !self.writable.get() && !self.ptr.get().is_null() {
            return Err(PyRuntimeError::new_err(format!(
                "sf.{field} cannot be set in this hook (ssthresh returns the new ssthresh; \
                 on_subflows_changed only reads)"
            )));
        }
        self.read(r, |_| ())?;
        // SAFETY: as in `read`, and the caller lent the subflows mutably.
        f(unsafe { &mut *self.ptr.get().add(r) });
        Ok(())
    }

    /// Breaks the cycle between the scope and its views.
    fn clear(&self) {
        self.views.borrow_mut().clear();
        self.connection.borrow_mut().take();
    }
}

/// One subflow as a congestion control's or slow start's hook sees it
/// (`mpsim.plugins.Subflow`): its state read in place, windows in bytes,
/// times in integer nanoseconds; `cwnd`, `ssthresh` and `ca_credit` can be set.
#[pyclass(unsendable, module = "mpsim._core")]
pub struct Subflow {
    scope: Rc<CcScope>,
    /// The subflow's index in its connection.
    #[pyo3(get)]
    index: usize,
}

/// The getters of [`Subflow`]: `name: type => field-expression`.
macro_rules! subflow_view {
    ($($(#[doc = $doc:literal])* $name:ident: $ty:ty => |$sf:ident| $e:expr;)*) => {
        #[pymethods]
        impl Subflow {
            $($(#[doc = $doc])* #[getter] fn $name(&self) -> PyResult<$ty> { self.scope.read(self.index, |$sf| $e) })*

            #[setter]
            fn set_cwnd(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
                assign(&self.scope, self.index, "cwnd", value, |sf, v| sf.cwnd = v)
            }
            #[setter]
            fn set_ssthresh(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
                assign(&self.scope, self.index, "ssthresh", value, |sf, v| sf.ssthresh = v)
            }
            #[setter]
            fn set_ca_credit(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
                assign(&self.scope, self.index, "ca_credit", value, |sf, v| sf.ca_credit = v)
            }

            /// Every subflow of the connection, this one included, in order.
            #[getter]
            fn connection(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
                self.scope.read(self.index, |_| ())?;
                let t = self.scope.connection.borrow();
                Ok(t.as_ref().expect("made with the view").clone_ref(py))
            }

            fn __repr__(&self) -> String {
                match self.scope.read(self.index, |sf| (sf.cwnd, sf.ssthresh, sf.srtt.0)) {
                    Ok((cwnd, ssthresh, srtt)) => {
                        format!("Subflow(index={}, cwnd={cwnd}, ssthresh={ssthresh}, srtt={srtt})", self.index)
                    }
                    Err(_) => format!("Subflow(index={}, outside its hook)", self.index),
                }
            }
        }
    };
}

subflow_view! {
    /// Congestion window, bytes.
    cwnd: u64 => |sf| sf.cwnd;
    /// Slow-start threshold, bytes (2^64 - 1 until the first loss unless configured).
    ssthresh: u64 => |sf| sf.ssthresh;
    /// Maximum segment size (payload bytes).
    mss: u32 => |sf| sf.mss;
    /// Smoothed RTT (RFC 6298), ns; 0 before the first sample.
    srtt: u64 => |sf| sf.srtt.0;
    /// Smoothed RTT, seconds.
    srtt_s: f64 => |sf| sf.srtt.as_secs_f64();
    /// Smallest RTT sample, ns; 0 before the first.
    min_rtt: u64 => |sf| sf.min_rtt.0;
    /// Latest RTT sample, ns; 0 before the first.
    latest_rtt: u64 => |sf| sf.latest_rtt.0;
    /// RTT samples taken so far.
    rtt_samples: u64 => |sf| sf.rtt_samples;
    /// Bytes sent and not yet acknowledged or marked lost (at a loss, what the profile halves).
    bytes_in_flight: u64 => |sf| sf.bytes_in_flight;
    /// Whether the subflow is in fast recovery.
    in_recovery: bool => |sf| sf.in_recovery;
    /// Whether the subflow can send (established and not closed).
    established: bool => |sf| sf.established;
    /// Whether cwnd < ssthresh.
    in_slow_start: bool => |sf| sf.in_slow_start();
    /// Whether the subflow has ever left slow start.
    left_slow_start: bool => |sf| sf.left_slow_start;
    /// Credit towards the next increase, bytes (Reno's byte counter; reset by the engine at a timeout).
    ca_credit: u64 => |sf| sf.ca_credit;
    /// Bytes acknowledged on the subflow since it started.
    bytes_acked: u64 => |sf| sf.bytes_acked;
    /// Bytes the latest ACK delivered (RFC 6937 DeliveredData).
    delivered_bytes: u64 => |sf| sf.delivered_bytes;
    /// Losses detected so far (fast recoveries and timeouts).
    loss_events: u64 => |sf| sf.loss_events;
    /// SND.UNA, sequence-number bytes.
    snd_una: u64 => |sf| sf.snd_una;
    /// SND.NXT, sequence-number bytes.
    snd_nxt: u64 => |sf| sf.snd_nxt;
}

/// A hook that returns nothing.
fn nothing(v: &Bound<'_, PyAny>) -> Result<(), &'static str> {
    if v.is_none() {
        Ok(())
    } else {
        Err("None (a hook changes a window by setting sf.cwnd or sf.ssthresh)")
    }
}

/// What a hook of a congestion control or a slow start is called with,
/// after the subflow (or, for `on_subflows_changed`, the connection alone).
#[derive(Clone, Copy)]
enum Args {
    /// `(sf, acked, now)`.
    Acked(u64, SimTime),
    /// `(sf, now)`.
    Now(SimTime),
    /// `(subflows,)`.
    Connection,
}

/// The hooks of one instance of a congestion control or a slow start, in
/// the order of its kind's names; `None` where the class keeps the base
/// class's, which the engine runs itself.
struct Hooks<const N: usize> {
    host: Arc<Host>,
    who: String,
    names: [&'static str; N],
    hooks: [Option<Py<PyAny>>; N],
    scope: Rc<CcScope>,
}

impl<const N: usize> Hooks<N> {
    fn new(
        factory: &Factory,
        names: [&'static str; N],
        settings: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
    ) -> Self {
        Hooks {
            host: factory.host.clone(),
            who: factory.who.clone(),
            names,
            hooks: instantiate(factory, settings, names),
            scope: CcScope::new(),
        }
    }

    fn has(&self, i: usize) -> bool {
        self.hooks[i].is_some()
    }

    /// Calls hook `i` on subflow `r` of `s[..len]` (the connection for
    /// [`Args::Connection`]), with the GIL held for the call only, and
    /// `check`s what it returns; `None` when the hook is absent, the run has
    /// failed, or the call failed (the failure is kept).
    fn call<T>(
        &self,
        i: usize,
        (s, len): (*mut SubflowCc, usize),
        writable: bool,
        r: usize,
        args: Args,
        check: impl FnOnce(&Bound<'_, PyAny>) -> Result<T, &'static str>,
    ) -> Option<T> {
        let hook = self.hooks[i].as_ref().filter(|_| !self.host.failed() && len > 0)?;
        let (name, who) = (self.names[i], self.who.as_str());
        let at = match args {
            Args::Acked(_, now) | Args::Now(now) => At(Some(r), Some(now)),
            Args::Connection => At(None, None),
        };
        Python::attach(|py| {
            let sf = match self.scope.view(py, r, len) {
                Ok(v) => v,
                Err(e) => {
                    self.host.raised(py, e, who, name, at);
                    return None;
                }
            };
            self.scope.enter(s, len, writable, || match args {
                Args::Acked(acked, now) => self.host.call(py, (who, name), hook, (sf, acked, now.0), at, check),
                Args::Now(now) => self.host.call(py, (who, name), hook, (sf, now.0), at, check),
                Args::Connection => {
                    let subflows = self.scope.connection.borrow().as_ref().map(|t| t.clone_ref(py));
                    self.host.call(py, (who, name), hook, (subflows,), at, check)
                }
            })
        })
    }
}

impl<const N: usize> Drop for Hooks<N> {
    fn drop(&mut self) {
        self.scope.clear();
    }
}

/// The state `s` as the pointer and length the scope of a hook that only
/// reads holds (its views refuse to write through it).
fn lent(s: &[SubflowCc]) -> (*mut SubflowCc, usize) {
    (s.as_ptr() as *mut SubflowCc, s.len())
}

/// The state `s` lent to a hook that may write.
fn lent_mut(s: &mut [SubflowCc]) -> (*mut SubflowCc, usize) {
    (s.as_mut_ptr(), s.len())
}

/// A Python congestion control's instance (`mpsim.plugins.CongestionControl`).
struct PyCc {
    hooks: Hooks<5>,
    /// The base class's `cong_avoid` and `ssthresh`, run here: the profile's Reno.
    reno: Reno,
}

impl CcPluginFactory for Factory {
    fn instance(&self, setup: &CcSetup) -> Box<dyn CongestionAvoidance> {
        let counting = serde_json::to_value(setup.reno.counting).unwrap_or_default();
        let names = [
            "cong_avoid",
            "ssthresh",
            "on_recovery_exit",
            "on_timeout",
            "on_subflows_changed",
        ];
        let hooks = Hooks::new(self, names, |d| {
            d.set_item("ack_counting", counting.as_str().unwrap_or("bytes"))
        });
        Box::new(PyCc {
            hooks,
            reno: Reno::new(setup.reno),
        })
    }
}

impl CongestionAvoidance for PyCc {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !self.hooks.has(0) {
            return self.reno.on_ack(s, r, ack);
        }
        self.hooks
            .call(0, lent_mut(s), true, r, Args::Acked(ack.acked_bytes, ack.now), nothing);
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        let check = |v: &Bound<'_, PyAny>| to_bytes(v, 0).ok_or(THRESHOLD);
        let given = self.hooks.call(1, lent(s), false, r, Args::Now(now), check);
        // The base class's ssthresh is Reno's (RFC 5681 eq. (4)), run here.
        given.unwrap_or_else(|| self.reno.ssthresh_after_loss(s, r, now))
    }

    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.hooks.call(2, lent_mut(s), true, r, Args::Now(now), nothing);
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.hooks.call(3, lent_mut(s), true, r, Args::Now(now), nothing);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.hooks.call(4, lent(s), false, 0, Args::Connection, nothing);
    }
}

/// A Python slow start's instance (`mpsim.plugins.SlowStart`); the
/// profile's standard slow start where the class keeps the base's `on_ack`.
struct PySs {
    hooks: Hooks<5>,
    standard: Standard,
}

impl SsPluginFactory for Factory {
    fn instance(&self, standard: StandardConfig, _n_subflows: usize) -> Box<dyn SlowStart> {
        let counting = serde_json::to_value(standard.counting).unwrap_or_default();
        let names = [
            "on_ack",
            "on_ack_without_growth",
            "on_subflow_start",
            "on_exit",
            "on_subflows_changed",
        ];
        let hooks = Hooks::new(self, names, |d| {
            d.set_item("ack_counting", counting.as_str().unwrap_or("bytes"))?;
            d.set_item("abc_limit_mss", standard.abc_limit_mss)
        });
        Box::new(PySs {
            hooks,
            standard: Standard::new(standard),
        })
    }
}

impl SlowStart for PySs {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        if !self.hooks.has(0) {
            return self.standard.on_ack(s, r, acked, now);
        }
        let check = |v: &Bound<'_, PyAny>| match v.is_none() {
            true => Ok(0),
            false => to_bytes(v, 0)
                .filter(|&n| n <= acked)
                .ok_or("None or the acknowledged bytes left for congestion avoidance, from 0 to those acknowledged"),
        };
        self.hooks
            .call(0, lent_mut(s), true, r, Args::Acked(acked, now), check)
            .unwrap_or(0)
    }

    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.hooks.call(1, lent_mut(s), true, r, Args::Now(now), nothing);
    }

    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.hooks.call(2, lent_mut(s), true, r, Args::Now(now), nothing);
    }

    fn on_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.hooks.call(3, lent_mut(s), true, r, Args::Now(now), nothing);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.hooks.call(4, lent(s), false, 0, Args::Connection, nothing);
    }
}

/// The subflows a scheduler's hook sees, set for the duration of one call,
/// and what it has asked of them.
struct SchedScope {
    subflows: Cell<Option<*mut (dyn Subflows + 'static)>>,
    /// Per subflow, the answer of `has_room` in this call: 0 not asked, 1
    /// room, 2 no room (asking again would not change it).
    asked: RefCell<Vec<u8>>,
    /// The chunk's length, bytes (`has_room()` without an argument).
    chunk_len: Cell<u32>,
    views: RefCell<Vec<Py<SchedulerSubflow>>>,
    tuple: RefCell<Option<Py<PyTuple>>>,
}

impl SchedScope {
    fn with<T>(&self, f: impl FnOnce(&mut dyn Subflows) -> T) -> PyResult<T> {
        match self.subflows.get() {
            // SAFETY: set by `PySched::pick` to the subflows it holds
            // borrowed mutably for the call, and cleared before it returns.
            Some(ptr) => Ok(f(unsafe { &mut *ptr })),
            None => Err(PyRuntimeError::new_err(
                "a subflow is readable only while the hook it was given to runs",
            )),
        }
    }

    /// `has_room` of subflow `r`, asked of the engine once per call.
    fn has_room(&self, r: usize, len: u32) -> PyResult<bool> {
        let chunk = len == self.chunk_len.get();
        let known = self.asked.borrow().get(r).copied().unwrap_or(0);
        if chunk && known != 0 {
            return Ok(known == 1);
        }
        let room = self.with(|s| r < s.count() && s.has_room(r, len))?;
        if chunk {
            if let Some(a) = self.asked.borrow_mut().get_mut(r) {
                *a = if room { 1 } else { 2 };
            }
        }
        Ok(room)
    }
}

/// One subflow as a scheduler's hook sees it (`mpsim.plugins.SchedulerSubflow`).
#[pyclass(unsendable, module = "mpsim._core")]
pub struct SchedulerSubflow {
    scope: Rc<SchedScope>,
    #[pyo3(get)]
    index: usize,
}

#[pymethods]
impl SchedulerSubflow {
    /// Whether the subflow can send `length` bytes now (the segment's by default).
    #[pyo3(signature = (length=None))]
    fn has_room(&self, length: Option<u32>) -> PyResult<bool> {
        self.scope
            .has_room(self.index, length.unwrap_or(self.scope.chunk_len.get()))
    }
    /// Whether the subflow may carry data (established and not removed).
    #[getter]
    fn established(&self) -> PyResult<bool> {
        self.scope.with(|s| s.state(self.index).established)
    }
    /// Smoothed RTT, ns.
    #[getter]
    fn srtt(&self) -> PyResult<u64> {
        self.scope.with(|s| s.srtt(self.index).0)
    }
    /// Smoothed RTT, seconds.
    #[getter]
    fn srtt_s(&self) -> PyResult<f64> {
        self.scope.with(|s| s.srtt(self.index).as_secs_f64())
    }
    /// RTT variation, ns.
    #[getter]
    fn rttvar(&self) -> PyResult<u64> {
        self.scope.with(|s| s.state(self.index).rttvar.0)
    }
    /// Congestion window, bytes.
    #[getter]
    fn cwnd(&self) -> PyResult<u64> {
        self.scope.with(|s| s.state(self.index).cwnd_bytes)
    }
    /// Slow-start threshold, bytes.
    #[getter]
    fn ssthresh(&self) -> PyResult<u64> {
        self.scope.with(|s| s.state(self.index).ssthresh_bytes)
    }
    /// Bytes sent and not yet acknowledged.
    #[getter]
    fn bytes_in_flight(&self) -> PyResult<u64> {
        self.scope.with(|s| s.state(self.index).in_flight_bytes)
    }
    /// Segment size, bytes.
    #[getter]
    fn mss(&self) -> PyResult<u32> {
        self.scope.with(|s| s.state(self.index).mss)
    }
}

/// The segment a scheduler places (`mpsim.plugins.Segment`), one object
/// reused for every call.
#[pyclass(unsendable, module = "mpsim._core")]
pub struct Segment {
    /// Payload bytes.
    #[pyo3(get)]
    length: u32,
    /// The subflow a reinjected segment was first sent on, else None.
    #[pyo3(get)]
    reinjected_from: Option<usize>,
    /// Bytes the connection could still send after this one within its window.
    #[pyo3(get)]
    unsent_bytes: u64,
    /// The connection's send window, bytes.
    #[pyo3(get)]
    window_bytes: u64,
}

/// A Python scheduler's instance (`mpsim.plugins.Scheduler`); minimum RTT
/// where the class keeps the base's `get_subflow`.
struct PySched {
    host: Arc<Host>,
    who: String,
    scope: Rc<SchedScope>,
    segment: Option<Py<Segment>>,
    hook: Option<Py<PyAny>>,
}

impl SchedulerPluginFactory for Factory {
    fn instance(&self) -> Box<dyn ExternalSchedule> {
        let [hook] = instantiate(self, |_| Ok(()), ["get_subflow"]);
        let segment = Python::attach(|py| {
            let s = Segment {
                length: 0,
                reinjected_from: None,
                unsent_bytes: 0,
                window_bytes: 0,
            };
            Py::new(py, s).ok()
        });
        Box::new(PySched {
            host: self.host.clone(),
            who: self.who.clone(),
            scope: Rc::new(SchedScope {
                subflows: Cell::new(None),
                asked: RefCell::new(Vec::new()),
                chunk_len: Cell::new(0),
                views: RefCell::new(Vec::new()),
                tuple: RefCell::new(None),
            }),
            segment,
            hook,
        })
    }
}

impl Drop for PySched {
    fn drop(&mut self) {
        self.scope.views.borrow_mut().clear();
        self.scope.tuple.borrow_mut().take();
    }
}

impl PySched {
    /// The views of the first `n` subflows, made once and kept.
    fn subflows(&self, py: Python<'_>, n: usize) -> PyResult<Py<PyTuple>> {
        let mut views = self.scope.views.borrow_mut();
        while views.len() < n {
            let index = views.len();
            let scope = self.scope.clone();
            views.push(Py::new(py, SchedulerSubflow { scope, index })?);
        }
        let mut tuple = self.scope.tuple.borrow_mut();
        if tuple.as_ref().is_none_or(|t| t.bind(py).len() != n) {
            *tuple = Some(PyTuple::new(py, views[..n].iter().map(|v| v.clone_ref(py)))?.unbind());
        }
        Ok(tuple.as_ref().expect("just made").clone_ref(py))
    }
}

impl ExternalSchedule for PySched {
    fn pick(&mut self, subflows: &mut dyn Subflows, chunk: &Chunk) -> Option<usize> {
        let (Some(hook), Some(segment)) = (&self.hook, &self.segment) else {
            return MinRtt.pick(&mut DynSubflows(subflows), chunk);
        };
        if self.host.failed() {
            return None;
        }
        let n = subflows.count();
        let at = At(None, None);
        Python::attach(|py| {
            let views = match self.subflows(py, n) {
                Ok(v) => v,
                Err(e) => {
                    self.host.raised(py, e, &self.who, "get_subflow", at);
                    return None;
                }
            };
            {
                let mut s = segment.borrow_mut(py);
                s.length = chunk.len;
                s.reinjected_from = chunk.avoid;
                s.unsent_bytes = chunk.unsent_bytes;
                s.window_bytes = chunk.window_bytes;
            }
            {
                let mut asked = self.scope.asked.borrow_mut();
                asked.clear();
                asked.resize(n, 0);
            }
            self.scope.chunk_len.set(chunk.len);
            let ptr: *mut (dyn Subflows + '_) = subflows;
            // SAFETY: the lifetime is erased for the duration of the call
            // only; the pointer is cleared below before `subflows` is
            // used again or goes out of scope.
            let ptr: *mut (dyn Subflows + 'static) = unsafe { std::mem::transmute(ptr) };
            self.scope.subflows.set(Some(ptr));
            let scope = self.scope.clone();
            let check = |v: &Bound<'_, PyAny>| -> Result<Option<usize>, &'static str> {
                const ALLOWED: &str = "None (wait for the next ACK) or the index of a subflow with room";
                if v.is_none() {
                    return Ok(None);
                }
                let r = v
                    .extract::<usize>()
                    .ok()
                    .filter(|_| !v.is_instance_of::<pyo3::types::PyBool>())
                    .filter(|&r| r < n)
                    .ok_or(ALLOWED)?;
                match scope.has_room(r, chunk.len) {
                    Ok(true) => Ok(Some(r)),
                    _ => Err(ALLOWED),
                }
            };
            let picked = self.host.call(
                py,
                (&self.who, "get_subflow"),
                hook,
                (views, segment.clone_ref(py)),
                at,
                check,
            );
            self.scope.subflows.set(None);
            picked.flatten()
        })
    }
}
