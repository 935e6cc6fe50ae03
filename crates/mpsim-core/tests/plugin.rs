//! Algorithms supplied by the caller (`mpsim_core::plugin`): an external
//! congestion control, slow start and scheduler that do what the native
//! ones do give the native results exactly, and one that fails stops the
//! run after the event in progress with `Stop::Aborted`.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::*;
use mpsim_core::cc::{AckInfo, CcConfig, CcPluginFactory, CcSetup, CongestionAvoidance, Lia, LiaConfig, SubflowCc};
use mpsim_core::config::*;
use mpsim_core::plugin::{Abort, Plugin, PluginSpec};
use mpsim_core::slowstart::{SlowStart, SlowStartConfig, SsPluginFactory, Standard, StandardConfig};
use mpsim_core::stop::{Never, Stop};
use mpsim_core::time::SimTime;
use mpsim_core::transport::scheduler::{
    Chunk, DynSubflows, ExternalSchedule, MinRtt, Schedule, SchedulerPluginFactory, Subflows,
};

/// The native LIA, through the plug-in's path; raises `abort` after
/// `fail_after` ACKs when given.
struct ExternalLia {
    calls: Arc<AtomicU64>,
    fail_after: Option<(u64, Abort)>,
}

impl CcPluginFactory for ExternalLia {
    fn instance(&self, setup: &CcSetup) -> Box<dyn CongestionAvoidance> {
        use mpsim_core::cc::CcFactory;
        struct Counting(Lia, Arc<AtomicU64>, Option<(u64, Abort)>);
        impl CongestionAvoidance for Counting {
            fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
                let n = self.1.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some((limit, abort)) = &self.2 {
                    if n >= *limit {
                        abort.raise();
                    }
                }
                self.0.on_ack(s, r, ack)
            }
            fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
                self.0.ssthresh_after_loss(s, r, now)
            }
            fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
                self.0.on_rto(s, r, now)
            }
            fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
                self.0.on_subflows_changed(s)
            }
        }
        let lia = LiaConfig::default().build(setup);
        Box::new(Counting(lia, self.calls.clone(), self.fail_after.clone()))
    }
}

/// The standard slow start, through the plug-in's path.
struct ExternalStandard;

impl SsPluginFactory for ExternalStandard {
    fn instance(&self, standard: StandardConfig, _n: usize) -> Box<dyn SlowStart> {
        Box::new(Standard::new(standard))
    }
}

/// Minimum RTT, through the plug-in's path.
struct ExternalMinRtt;

impl SchedulerPluginFactory for ExternalMinRtt {
    fn instance(&self) -> Box<dyn ExternalSchedule> {
        struct Picks;
        impl ExternalSchedule for Picks {
            fn pick(&mut self, subflows: &mut dyn Subflows, chunk: &Chunk) -> Option<usize> {
                MinRtt.pick(&mut DynSubflows(subflows), chunk)
            }
        }
        Box::new(Picks)
    }
}

fn spec(class: &str) -> PluginSpec {
    PluginSpec {
        class: class.into(),
        ..PluginSpec::default()
    }
}

/// An MPTCP connection with LIA and the standard slow start over two paths
/// whose buffers overflow, one with random loss, under `profile`.
fn scenario(profile: Profile) -> ScenarioConfig {
    let mut cfg = two_paths([10_000_000, 5_000_000], [20 * MS, 60 * MS], 25);
    cfg.seed = 3;
    cfg.stop_time_ns = 4 * S;
    cfg.links[2].loss = LossConfig::Bernoulli { p: 0.002 };
    cfg.mptcp_connections = vec![MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["S1".into(), "S2".into()],
        dst_addrs: vec!["D".into()],
        cc: Some(CcConfig::Lia {
            config: Default::default(),
        }),
        scheduler: Some(Scheduler::Minrtt),
        tcp: TcpOptions {
            profile,
            ..TcpOptions::default()
        },
        ..MptcpConnectionConfig::default()
    }];
    cfg
}

fn external(mut cfg: ScenarioConfig, lia: ExternalLia) -> ScenarioConfig {
    let m = &mut cfg.mptcp_connections[0];
    m.cc = Some(CcConfig::Plugin {
        config: Plugin {
            spec: spec("lia"),
            factory: Some(Arc::new(lia) as Arc<dyn CcPluginFactory>),
        },
    });
    m.slow_start = SlowStartConfig::Plugin {
        config: Plugin {
            spec: spec("standard"),
            factory: Some(Arc::new(ExternalStandard) as Arc<dyn SsPluginFactory>),
        },
    };
    m.scheduler_plugin = Some(Plugin {
        spec: spec("minrtt"),
        factory: Some(Arc::new(ExternalMinRtt) as Arc<dyn SchedulerPluginFactory>),
    });
    cfg
}

#[test]
fn external_algorithms_that_do_what_the_native_ones_do_give_their_results() {
    for profile in [Profile::Linux, Profile::Ns3, Profile::Rfc] {
        let native = mpsim_core::run(&scenario(profile)).expect("valid");
        let calls = Arc::new(AtomicU64::new(0));
        let cfg = external(
            scenario(profile),
            ExternalLia {
                calls: calls.clone(),
                fail_after: None,
            },
        );
        let plugged = mpsim_core::run(&cfg).expect("valid");
        assert!(
            calls.load(Ordering::Relaxed) > 100,
            "{profile:?}: the external LIA was called"
        );
        assert_eq!(
            serde_json::to_string(&native).unwrap(),
            serde_json::to_string(&plugged).unwrap(),
            "{profile:?}"
        );
    }
}

#[test]
fn a_failing_external_algorithm_stops_the_run_after_the_event_in_progress() {
    let abort = Abort::default();
    let calls = Arc::new(AtomicU64::new(0));
    let lia = ExternalLia {
        calls: calls.clone(),
        fail_after: Some((50, abort.clone())),
    };
    let cfg = external(scenario(Profile::Linux), lia);
    let mut sim = mpsim_core::build::build(&cfg).expect("valid");
    sim.abort = abort;
    let stopped = sim.run_bounded(&mut Never).expect_err("aborted");
    assert_eq!(stopped.why, Stop::Aborted);
    // One event may call the hook more than once, never many more.
    assert!((50..60).contains(&calls.load(Ordering::Relaxed)));
    assert!(stopped.at < SimTime(cfg.stop_time_ns));
}

#[test]
fn an_external_algorithm_without_its_factory_is_a_problem_of_the_configuration() {
    let mut cfg = scenario(Profile::Linux);
    cfg.mptcp_connections[0].cc = Some(CcConfig::Plugin {
        config: Plugin {
            spec: spec("x.py:X"),
            factory: None,
        },
    });
    let Err(problems) = mpsim_core::build::check(&cfg) else {
        panic!("accepted without a factory");
    };
    assert_eq!(problems.iter().next().unwrap().path, "mptcp_connections[0].cc.class");
}
