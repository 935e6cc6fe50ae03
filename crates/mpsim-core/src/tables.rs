//! The result tables, defined once: each table's columns with their Arrow
//! type, and the values of a run in them, laid out as Arrow lays out a
//! column in memory, so that the Python side hands the buffers to pyarrow as
//! they are (nothing inferred, nothing parsed). The derived measures of the
//! `flows` table — `retransmissions`, the summed windows, a connection's
//! slow-start exit — are computed here only.

use serde::Serialize;

use crate::error::Error;
use crate::results::{RunResults, SegmentTraceResult, TcpFlowResult, ThroughputResult};
use crate::throughput::Bins;
use crate::time::{SimDuration, SimTime};
use crate::trace::SegmentRecord;
use crate::wire::TcpFlags;

/// The Arrow type of a column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    String,
    Int64,
    UInt32,
    UInt64,
    Float64,
    Bool,
}

impl ColumnType {
    /// Arrow's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::String => "string",
            ColumnType::Int64 => "int64",
            ColumnType::UInt32 => "uint32",
            ColumnType::UInt64 => "uint64",
            ColumnType::Float64 => "float64",
            ColumnType::Bool => "bool",
        }
    }
}

/// One column in Arrow's columnar layout (the Arrow format's "Physical
/// Memory Layout": a validity bitmap, then the values; strings as offsets
/// into one UTF-8 buffer). Every buffer is little-endian.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColumnType,
    /// Whether the column may hold nulls (its Arrow field's `nullable`).
    pub nullable: bool,
    /// Rows.
    pub len: usize,
    /// Rows without a value.
    pub null_count: usize,
    /// One bit per row, least significant first, set where the row has a
    /// value; empty while no row is null.
    pub validity: Vec<u8>,
    /// Strings: `len + 1` `i32` offsets of each string's start in `data`;
    /// empty for the other types.
    pub offsets: Vec<u8>,
    /// Fixed-width values one after another (a null row holds zeros);
    /// `bool`: one bit per row as in `validity`; strings: their UTF-8 bytes.
    pub data: Vec<u8>,
}

/// A value as a table's row gives it to its column.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    /// Any integer; the column's type bounds it.
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
}

macro_rules! int_cells {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell {
            fn from(v: $t) -> Cell {
                Cell::Int(v as i128)
            }
        }
    )*};
}
int_cells!(u32, u64, usize);

impl From<f64> for Cell {
    fn from(v: f64) -> Cell {
        Cell::Float(v)
    }
}

impl From<bool> for Cell {
    fn from(v: bool) -> Cell {
        Cell::Bool(v)
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Cell {
        Cell::Str(v)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Cell {
        Cell::Str(v.to_string())
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Cell {
        v.map_or(Cell::Null, Into::into)
    }
}

/// Sets bit `i` of a bitmap, growing it as needed.
fn set_bit(bits: &mut Vec<u8>, i: usize, value: bool) {
    if bits.len() * 8 <= i {
        bits.resize(i / 8 + 1, 0);
    }
    if value {
        bits[i / 8] |= 1 << (i % 8);
    }
}

impl Column {
    fn new(name: &'static str, ty: ColumnType, nullable: bool) -> Self {
        Column {
            name,
            ty,
            nullable,
            len: 0,
            null_count: 0,
            validity: Vec::new(),
            offsets: if ty == ColumnType::String {
                0i32.to_le_bytes().to_vec()
            } else {
                Vec::new()
            },
            data: Vec::new(),
        }
    }

    /// Appends one row; a value the column's type cannot hold is an error
    /// naming the column.
    fn push(&mut self, cell: Cell) -> Result<(), String> {
        let row = self.len;
        let out_of_range = |v: &dyn std::fmt::Display| format!("{}: {v} does not fit {}", self.name, self.ty.name());
        // JSON has no NaN or infinity: a non-finite number was null when the
        // tables crossed as JSON, and stays so.
        let cell = match cell {
            Cell::Float(f) if !f.is_finite() => Cell::Null,
            c => c,
        };
        let present = cell != Cell::Null;
        match (self.ty, cell) {
            (_, Cell::Null) => {
                self.null_count += 1;
                let width = match self.ty {
                    ColumnType::Int64 | ColumnType::UInt64 | ColumnType::Float64 => 8,
                    ColumnType::UInt32 => 4,
                    ColumnType::String | ColumnType::Bool => 0,
                };
                self.data.resize(self.data.len() + width, 0);
            }
            (ColumnType::Int64, Cell::Int(v)) => {
                let v = i64::try_from(v).map_err(|_| out_of_range(&v))?;
                self.data.extend_from_slice(&v.to_le_bytes());
            }
            (ColumnType::UInt64, Cell::Int(v)) => {
                let v = u64::try_from(v).map_err(|_| out_of_range(&v))?;
                self.data.extend_from_slice(&v.to_le_bytes());
            }
            (ColumnType::UInt32, Cell::Int(v)) => {
                let v = u32::try_from(v).map_err(|_| out_of_range(&v))?;
                self.data.extend_from_slice(&v.to_le_bytes());
            }
            (ColumnType::Float64, Cell::Float(v)) => self.data.extend_from_slice(&v.to_le_bytes()),
            (ColumnType::Bool, Cell::Bool(v)) => set_bit(&mut self.data, row, v),
            (ColumnType::String, Cell::Str(v)) => self.data.extend_from_slice(v.as_bytes()),
            (ty, cell) => return Err(format!("{}: {cell:?} in a {} column", self.name, ty.name())),
        }
        if self.ty == ColumnType::String {
            let end = i32::try_from(self.data.len()).map_err(|_| format!("{}: more than 2 GiB of text", self.name))?;
            self.offsets.extend_from_slice(&end.to_le_bytes());
        }
        if self.ty == ColumnType::Bool && !present {
            set_bit(&mut self.data, row, false);
        }
        // The bitmap is written once the first null comes, for the rows before it too.
        if !present && self.validity.is_empty() {
            for r in 0..row {
                set_bit(&mut self.validity, r, true);
            }
        }
        if !present || !self.validity.is_empty() {
            set_bit(&mut self.validity, row, present);
        }
        self.len += 1;
        Ok(())
    }

    /// The value of row `i` (for tests and diagnostics; the Python side reads the buffers).
    pub fn cell(&self, i: usize) -> Cell {
        let bit = |bits: &[u8], i: usize| bits[i / 8] & (1 << (i % 8)) != 0;
        if !self.validity.is_empty() && !bit(&self.validity, i) {
            return Cell::Null;
        }
        let word = |w: usize| &self.data[i * w..(i + 1) * w];
        match self.ty {
            ColumnType::Int64 => Cell::Int(i64::from_le_bytes(word(8).try_into().unwrap_or_default()) as i128),
            ColumnType::UInt64 => Cell::Int(u64::from_le_bytes(word(8).try_into().unwrap_or_default()) as i128),
            ColumnType::UInt32 => Cell::Int(u32::from_le_bytes(word(4).try_into().unwrap_or_default()) as i128),
            ColumnType::Float64 => Cell::Float(f64::from_le_bytes(word(8).try_into().unwrap_or_default())),
            ColumnType::Bool => Cell::Bool(bit(&self.data, i)),
            ColumnType::String => {
                let at = |k: usize| {
                    let b: [u8; 4] = self.offsets[4 * k..4 * k + 4].try_into().unwrap_or_default();
                    i32::from_le_bytes(b) as usize
                };
                Cell::Str(String::from_utf8_lossy(&self.data[at(i)..at(i + 1)]).into_owned())
            }
        }
    }
}

/// A named table of columns of equal length.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<Column>,
}

/// The tables' names, in the order [`RunResults::tables`] gives them.
pub const TABLES: [&str; 11] = [
    "flows",
    "tcp_flows",
    "mptcp_connections",
    "mptcp_subflows",
    "udp_flows",
    "links",
    "tcp_traces",
    "rto_times",
    "queue_traces",
    "segment_traces",
    "throughput",
];

/// Builds a table column by column over its rows; the first value a column
/// cannot hold is kept as the table's error.
struct Builder<'a, R> {
    rows: &'a [R],
    columns: Vec<Column>,
    error: Option<String>,
}

impl<'a, R> Builder<'a, R> {
    fn new(rows: &'a [R]) -> Self {
        Builder {
            rows,
            columns: Vec::new(),
            error: None,
        }
    }

    /// A column without nulls.
    fn col<T: Into<Cell>>(self, name: &'static str, ty: ColumnType, value: impl Fn(&R) -> T) -> Self {
        self.push(name, ty, false, value)
    }

    /// A column that is null where the row has no value.
    fn opt<T: Into<Cell>>(self, name: &'static str, ty: ColumnType, value: impl Fn(&R) -> Option<T>) -> Self {
        self.push(name, ty, true, value)
    }

    fn push<T: Into<Cell>>(
        mut self,
        name: &'static str,
        ty: ColumnType,
        nullable: bool,
        value: impl Fn(&R) -> T,
    ) -> Self {
        let mut column = Column::new(name, ty, nullable);
        for r in self.rows {
            if let Err(e) = column.push(value(r).into()) {
                self.error.get_or_insert(e);
                break;
            }
        }
        self.columns.push(column);
        self
    }

    fn done(self, name: &'static str) -> Result<Table, Error> {
        match self.error {
            Some(e) => Err(Error::Internal(format!("the {name} table: {e}"))),
            None => Ok(Table {
                name,
                columns: self.columns,
            }),
        }
    }
}

use ColumnType::{Bool, Float64, Int64, String as Str, UInt32, UInt64};

/// A TCP flow's measures (a TCP flow's row, or a subflow's after its own columns).
fn tcp_flow_columns<'a, R>(b: Builder<'a, R>, flow: impl Fn(&R) -> &TcpFlowResult + Copy) -> Builder<'a, R> {
    b.col("start_ns", Int64, move |r| flow(r).start_ns)
        .opt("first_syn_ns", Int64, move |r| flow(r).first_syn_ns)
        .opt("completed_ns", Int64, move |r| flow(r).completed_ns)
        .opt("fct_ns", Int64, move |r| flow(r).fct_ns)
        .col("bytes_delivered", Int64, move |r| flow(r).bytes_delivered)
        .col("segments_sent", Int64, move |r| flow(r).segments_sent)
        .col("retransmits_fast", Int64, move |r| flow(r).retransmits_fast)
        .col("retransmits_rto", Int64, move |r| flow(r).retransmits_rto)
        .col("rto_count", Int64, move |r| flow(r).rto_count)
        .col("loss_probes", Int64, move |r| flow(r).loss_probes)
        .col("syn_retransmits", Int64, move |r| flow(r).syn_retransmits)
        .col("fast_recoveries", Int64, move |r| flow(r).fast_recoveries)
        .col("cwnd_bytes_at_end", Int64, move |r| flow(r).cwnd_bytes_at_end)
        // Null while unlimited.
        .opt("ssthresh_bytes_at_end", Int64, move |r| flow(r).ssthresh_bytes_at_end)
        .col("srtt_ns_at_end", Int64, move |r| flow(r).srtt_ns_at_end)
        .opt("slow_start_exit_ns", Int64, move |r| flow(r).slow_start_exit_ns)
        .opt("cwnd_bytes_at_slow_start_exit", Int64, move |r| {
            flow(r).cwnd_bytes_at_slow_start_exit
        })
        .col("retransmits_before_slow_start_exit", Int64, move |r| {
            flow(r).retransmits_before_slow_start_exit
        })
        .col("acks_sent", Int64, move |r| flow(r).acks_sent)
        .col("duplicate_acks", Int64, move |r| flow(r).duplicate_acks)
}

/// Each trace with the index of each of its samples: the rows of a trace in long form.
fn samples<T>(traces: &[T], len: impl Fn(&T) -> usize) -> Vec<(&T, usize)> {
    traces.iter().flat_map(|t| (0..len(t)).map(move |k| (t, k))).collect()
}

/// A header's flags as Wireshark names them, joined by `|` (`SYN|ACK`).
fn flag_names(flags: u8) -> String {
    const NAMES: [(u8, &str); 4] = [
        (TcpFlags::SYN, "SYN"),
        (TcpFlags::FIN, "FIN"),
        (TcpFlags::ACK, "ACK"),
        (TcpFlags::DATA_FIN, "DATA_FIN"),
    ];
    let set: Vec<&str> = NAMES.iter().filter(|(f, _)| flags & f != 0).map(|(_, n)| *n).collect();
    set.join("|")
}

/// The rows of the `segment_traces` table: every traced segment and ACK.
fn segment_table(traces: &[SegmentTraceResult]) -> Result<Table, Error> {
    let rows: Vec<(&SegmentTraceResult, &SegmentRecord)> = traces
        .iter()
        .flat_map(|t| t.segments.iter().map(move |s| (t, s)))
        .collect();
    // A column of sent segments only, null on ACK rows; and the reverse.
    let sent = |r: &SegmentRecord| !r.received;
    let mptcp = |t: &SegmentTraceResult| t.mptcp;
    Builder::new(&rows)
        .col("flow", Str, |(t, _)| t.flow.clone())
        .col("subflow", UInt32, |(t, _)| t.subflow)
        .col("event", Str, |(_, r)| if r.received { "ack" } else { "send" })
        .col("time_ns", Int64, |(_, r)| r.time_ns)
        .col("time_s", Float64, |(_, r)| r.time_ns as f64 / 1e9)
        .col("flags", Str, |(_, r)| flag_names(r.flags))
        .opt("seq", Int64, |(_, r)| sent(r).then_some(r.seq))
        .opt("payload_bytes", Int64, |(_, r)| sent(r).then_some(r.payload_bytes))
        .opt("retransmission", Bool, |(_, r)| sent(r).then_some(r.retransmission))
        .opt("data_seq", Int64, |(t, r)| {
            (sent(r) && mptcp(t) && r.payload_bytes > 0).then_some(r.data_seq)
        })
        .opt("ack", Int64, |(_, r)| r.received.then_some(r.ack))
        .opt("snd_una", Int64, |(_, r)| r.received.then_some(r.snd_una))
        .opt("sack", Str, |(_, r)| {
            let blocks = &r.sack[..r.n_sack as usize];
            (r.received && !blocks.is_empty()).then(|| {
                let text: Vec<String> = blocks.iter().map(|(s, e)| format!("{s}-{e}")).collect();
                text.join(" ")
            })
        })
        .opt("rwnd_bytes", Int64, |(_, r)| r.received.then_some(r.rwnd_bytes))
        .opt("cwnd_bytes", Int64, |(_, r)| r.received.then_some(r.cwnd_bytes))
        .opt("data_ack", Int64, |(t, r)| {
            (r.received && mptcp(t)).then_some(r.data_ack)
        })
        .done("segment_traces")
}

/// One transfer of the `flows` table: a TCP flow or an MPTCP connection.
struct Transfer<'a> {
    name: &'a str,
    kind: &'static str,
    subflows: usize,
    start_ns: u64,
    fct_ns: Option<u64>,
    bytes_delivered: u64,
    retransmissions: u64,
    rto_count: u64,
    loss_probes: u64,
    cwnd_bytes_at_end: u64,
    cwnd_bytes_at_completion: Option<u64>,
    retransmissions_before_slow_start_exit: u64,
    cwnd_bytes_at_slow_start_exit: Option<u64>,
}

impl RunResults {
    /// Every result table, in the order of [`TABLES`].
    pub fn tables(&self) -> Result<Vec<Table>, Error> {
        TABLES.iter().map(|name| self.table(name)).collect()
    }

    /// One result table by name (one of [`TABLES`]).
    pub fn table(&self, name: &str) -> Result<Table, Error> {
        let seconds = |ns: u64| ns as f64 / 1e9;
        match name {
            "flows" => self.flows_table(),
            "tcp_flows" => tcp_flow_columns(
                Builder::new(&self.tcp_flows).col("name", Str, |f| f.name.clone()),
                |f| f,
            )
            .done("tcp_flows"),
            "mptcp_connections" => self.mptcp_connections_table(),
            "mptcp_subflows" => self.mptcp_subflows_table(),
            "udp_flows" => self.udp_flows_table(),
            "links" => self.links_table(),
            // The traces in long form: one row per sample.
            "tcp_traces" => {
                let tcp_samples = samples(&self.tcp_traces, |t| t.time_ns.len());
                Builder::new(&tcp_samples)
                    .col("flow", Str, |(t, _)| t.flow.clone())
                    .col("subflow", UInt32, |(t, _)| t.subflow)
                    .col("time_ns", UInt64, |(t, k)| t.time_ns[*k])
                    .col("time_s", Float64, |(t, k)| seconds(t.time_ns[*k]))
                    .col("cwnd_bytes", UInt64, |(t, k)| t.cwnd_bytes[*k])
                    // Null while unlimited.
                    .opt("ssthresh_bytes", UInt64, |(t, k)| {
                        let ssthresh = t.ssthresh_bytes[*k];
                        (ssthresh != u64::MAX).then_some(ssthresh)
                    })
                    .col("srtt_ns", UInt64, |(t, k)| t.srtt_ns[*k])
                    .col("in_flight_bytes", UInt64, |(t, k)| t.in_flight_bytes[*k])
                    .done("tcp_traces")
            }
            // One row per retransmission timeout of a traced subflow; `rto` counts
            // the subflow's timeouts from 1.
            "rto_times" => {
                let rto_samples = samples(&self.rto_traces, |t| t.time_ns.len());
                Builder::new(&rto_samples)
                    .col("flow", Str, |(t, _)| t.flow.clone())
                    .col("subflow", UInt32, |(t, _)| t.subflow)
                    .col("rto", Int64, |(_, k)| k + 1)
                    .col("time_ns", Int64, |(t, k)| t.time_ns[*k])
                    .col("time_s", Float64, |(t, k)| seconds(t.time_ns[*k]))
                    .done("rto_times")
            }
            "queue_traces" => {
                let queue_samples = samples(&self.queue_traces, |t| t.time_ns.len());
                Builder::new(&queue_samples)
                    .col("link", Str, |(t, _)| t.link.clone())
                    .col("time_ns", Int64, |(t, k)| t.time_ns[*k])
                    .col("time_s", Float64, |(t, k)| seconds(t.time_ns[*k]))
                    .col("queue_pkts", Int64, |(t, k)| t.queue_pkts[*k])
                    .col("queue_bytes", Int64, |(t, k)| t.queue_bytes[*k])
                    .done("queue_traces")
            }
            "segment_traces" => segment_table(&self.segment_traces),
            "throughput" => self.throughput_table(),
            _ => Err(Error::Internal(format!(
                "no result table '{name}' (tables: {})",
                TABLES.join(", ")
            ))),
        }
    }

    /// One row per transfer: every TCP flow (and repetition) and MPTCP connection.
    fn flows_table(&self) -> Result<Table, Error> {
        let mut transfers: Vec<Transfer> = self
            .tcp_flows
            .iter()
            .map(|f| Transfer {
                name: &f.name,
                kind: "tcp",
                subflows: 1,
                start_ns: f.start_ns,
                fct_ns: f.fct_ns,
                // Fast, loss-probe and timeout retransmissions.
                retransmissions: f.retransmits_fast + f.retransmits_rto,
                bytes_delivered: f.bytes_delivered,
                rto_count: f.rto_count,
                loss_probes: f.loss_probes,
                cwnd_bytes_at_end: f.cwnd_bytes_at_end,
                cwnd_bytes_at_completion: None,
                retransmissions_before_slow_start_exit: f.retransmits_before_slow_start_exit,
                cwnd_bytes_at_slow_start_exit: f.cwnd_bytes_at_slow_start_exit,
            })
            .collect();
        transfers.extend(self.mptcp_connections.iter().map(|c| Transfer {
            name: &c.name,
            kind: "mptcp",
            subflows: c.subflows.len(),
            start_ns: c.start_ns,
            fct_ns: c.fct_ns,
            retransmissions: c.retransmits_fast + c.retransmits_rto,
            bytes_delivered: c.bytes_delivered,
            rto_count: c.rto_count,
            loss_probes: c.loss_probes,
            cwnd_bytes_at_end: c.sum_cwnd_bytes_at_end,
            cwnd_bytes_at_completion: c.sum_cwnd_bytes_at_completion,
            // LISA's R_ss: until the last subflow left slow start.
            retransmissions_before_slow_start_exit: c.retransmits_before_all_left_slow_start,
            cwnd_bytes_at_slow_start_exit: c.sum_cwnd_bytes_at_all_left_slow_start,
        }));
        let seconds = |ns: u64| ns as f64 / 1e9;
        Builder::new(&transfers)
            .col("name", Str, |t| t.name)
            .col("kind", Str, |t| t.kind)
            .col("subflows", Int64, |t| t.subflows)
            .col("start_s", Float64, |t| seconds(t.start_ns))
            .opt("fct_s", Float64, |t| t.fct_ns.map(seconds))
            .col("bytes_delivered", Int64, |t| t.bytes_delivered)
            .col("retransmissions", Int64, |t| t.retransmissions)
            .col("rto_count", Int64, |t| t.rto_count)
            .col("loss_probes", Int64, |t| t.loss_probes)
            .col("cwnd_bytes_at_end", Int64, |t| t.cwnd_bytes_at_end)
            .opt("cwnd_bytes_at_completion", Int64, |t| t.cwnd_bytes_at_completion)
            .col("retransmissions_before_slow_start_exit", Int64, |t| {
                t.retransmissions_before_slow_start_exit
            })
            .opt("cwnd_bytes_at_slow_start_exit", Int64, |t| {
                t.cwnd_bytes_at_slow_start_exit
            })
            .done("flows")
    }

    fn mptcp_connections_table(&self) -> Result<Table, Error> {
        Builder::new(&self.mptcp_connections)
            .col("name", Str, |c| c.name.clone())
            .col("start_ns", Int64, |c| c.start_ns)
            .opt("first_syn_ns", Int64, |c| c.first_syn_ns)
            .opt("completed_ns", Int64, |c| c.completed_ns)
            .opt("fct_ns", Int64, |c| c.fct_ns)
            .col("bytes_delivered", Int64, |c| c.bytes_delivered)
            .col("segments_sent", Int64, |c| c.segments_sent)
            .col("retransmits_fast", Int64, |c| c.retransmits_fast)
            .col("retransmits_rto", Int64, |c| c.retransmits_rto)
            .col("rto_count", Int64, |c| c.rto_count)
            .col("loss_probes", Int64, |c| c.loss_probes)
            .col("sum_cwnd_bytes_at_end", Int64, |c| c.sum_cwnd_bytes_at_end)
            .opt("sum_cwnd_bytes_at_completion", Int64, |c| {
                c.sum_cwnd_bytes_at_completion
            })
            .opt("all_left_slow_start_ns", Int64, |c| c.all_left_slow_start_ns)
            .opt("sum_cwnd_bytes_at_all_left_slow_start", Int64, |c| {
                c.sum_cwnd_bytes_at_all_left_slow_start
            })
            .col("retransmits_before_all_left_slow_start", Int64, |c| {
                c.retransmits_before_all_left_slow_start
            })
            .col("reinjected_chunks", Int64, |c| c.reinjected_chunks)
            .col("max_out_of_order_bytes", Int64, |c| c.max_out_of_order_bytes)
            .col("data_duplicate_bytes", Int64, |c| c.data_duplicate_bytes)
            .col("subflow_events", Str, |c| {
                serde_json::to_string(&c.subflow_events).unwrap_or_default()
            })
            .done("mptcp_connections")
    }

    /// One row per subflow, after its connection's name.
    fn mptcp_subflows_table(&self) -> Result<Table, Error> {
        let c = &self.mptcp_connections;
        let subflows: Vec<_> = c.iter().flat_map(|c| c.subflows.iter().map(move |s| (c, s))).collect();
        tcp_flow_columns(
            Builder::new(&subflows)
                .col("connection", Str, |(c, _)| c.name.clone())
                .col("subflow", Int64, |(_, s)| s.index)
                .col("src", Str, |(_, s)| s.src.clone())
                .col("dst", Str, |(_, s)| s.dst.clone())
                .opt("established_ns", Int64, |(_, s)| s.established_ns)
                .opt("added_ns", Int64, |(_, s)| s.added_ns)
                .opt("removed_ns", Int64, |(_, s)| s.removed_ns)
                .col("bytes_received", Int64, |(_, s)| s.bytes_received),
            |(_, s)| &s.flow,
        )
        .done("mptcp_subflows")
    }

    fn udp_flows_table(&self) -> Result<Table, Error> {
        Builder::new(&self.udp_flows)
            .col("name", Str, |u| u.name.clone())
            .col("sent_pkts", Int64, |u| u.sent_pkts)
            .col("sent_bytes", Int64, |u| u.sent_bytes)
            .col("received_pkts", Int64, |u| u.received_pkts)
            .col("received_bytes", Int64, |u| u.received_bytes)
            .col("reordered_pkts", Int64, |u| u.reordered_pkts)
            .col("delay_min_ns", Int64, |u| u.delay_min_ns)
            .col("delay_mean_ns", Float64, |u| u.delay_mean_ns)
            .col("delay_max_ns", Int64, |u| u.delay_max_ns)
            .opt("first_rx_ns", Int64, |u| u.first_rx_ns)
            .opt("last_rx_ns", Int64, |u| u.last_rx_ns)
            .done("udp_flows")
    }

    fn links_table(&self) -> Result<Table, Error> {
        Builder::new(&self.links)
            .col("name", Str, |l| l.name.clone())
            .col("from", Str, |l| l.from.clone())
            .col("to", Str, |l| l.to.clone())
            .col("arrived_pkts", Int64, |l| l.arrived_pkts)
            .col("arrived_bytes", Int64, |l| l.arrived_bytes)
            .col("enqueued_pkts", Int64, |l| l.enqueued_pkts)
            .col("enqueued_bytes", Int64, |l| l.enqueued_bytes)
            .col("delivered_pkts", Int64, |l| l.delivered_pkts)
            .col("delivered_bytes", Int64, |l| l.delivered_bytes)
            .col("dropped_overflow_pkts", Int64, |l| l.dropped_overflow_pkts)
            .col("dropped_red_pkts", Int64, |l| l.dropped_red_pkts)
            .col("dropped_codel_pkts", Int64, |l| l.dropped_codel_pkts)
            .col("dropped_loss_pkts", Int64, |l| l.dropped_loss_pkts)
            .col("dropped_link_down_pkts", Int64, |l| l.dropped_link_down_pkts)
            .col("dropped_bytes", Int64, |l| l.dropped_bytes)
            .col("queued_pkts_at_end", Int64, |l| l.queued_pkts_at_end)
            .col("in_transit_pkts_at_end", Int64, |l| l.in_transit_pkts_at_end)
            .col("max_queue_pkts", Int64, |l| l.max_queue_pkts)
            .col("max_queue_bytes", Int64, |l| l.max_queue_bytes)
            .col("mean_queue_pkts", Float64, |l| l.mean_queue_pkts)
            .col("utilisation", Float64, |l| l.utilisation)
            .done("links")
    }

    /// The windowed throughput in long form: one row per bin of each flow
    /// and subflow (no rows when the scenario does not ask for it).
    fn throughput_table(&self) -> Result<Table, Error> {
        let empty = ThroughputResult {
            start_ns: 0,
            interval_ns: 1,
            end_ns: 0,
            series: Vec::new(),
        };
        let t = self.throughput.as_ref().unwrap_or(&empty);
        let bins = Bins {
            start: SimTime(t.start_ns),
            interval: SimDuration(t.interval_ns),
            end: SimTime(t.end_ns),
        };
        let span = |k: usize| bins.span_ns(k);
        let rate_bps = |bytes: u64, k: usize| {
            let (from, to) = span(k);
            bytes as f64 * 8.0 * 1e9 / (to - from) as f64
        };
        let rows = samples(&t.series, |s| s.bytes_sent.len());
        Builder::new(&rows)
            .col("flow", Str, |(s, _)| s.flow.clone())
            .col("kind", Str, |(s, _)| s.kind.clone())
            .opt("subflow", Int64, |(s, _)| s.subflow)
            .col("bin", Int64, |(_, k)| *k)
            .col("start_ns", Int64, |(_, k)| span(*k).0)
            .col("end_ns", Int64, |(_, k)| span(*k).1)
            .col("start_s", Float64, |(_, k)| span(*k).0 as f64 / 1e9)
            .col("end_s", Float64, |(_, k)| span(*k).1 as f64 / 1e9)
            .col("bytes_sent", Int64, |(s, k)| s.bytes_sent[*k])
            .col("bytes_delivered", Int64, |(s, k)| s.bytes_delivered[*k])
            .col("sent_bps", Float64, |(s, k)| rate_bps(s.bytes_sent[*k], *k))
            .col("delivered_bps", Float64, |(s, k)| rate_bps(s.bytes_delivered[*k], *k))
            .done("throughput")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ScenarioConfig;

    fn run() -> RunResults {
        let cfg = ScenarioConfig::from_json(
            r#"{"stop_time_ns": 3000000000,
                "nodes": [{"name": "a"}, {"name": "b"}],
                "addresses": [{"name": "a1", "node": "a"}, {"name": "a2", "node": "a"}],
                "links": [{"name": "ab", "from": "a", "to": "b", "rate_bps": 10000000, "delay_ns": 10000000},
                          {"name": "ba", "from": "b", "to": "a", "rate_bps": 10000000, "delay_ns": 10000000}],
                "tcp_flows": [{"name": "t", "src": "a1", "dst": "b", "size_bytes": 300000, "trace": true}],
                "mptcp_connections": [{"name": "m", "src_addrs": ["a1"], "dst_addrs": ["b"], "size_bytes": 300000,
                    "subflow_events": [{"at_ns": 500000000, "action": "add", "src": "a2", "dst": "b"}]}],
                "trace": {"queue_links": ["ab"]}}"#,
        )
        .unwrap();
        crate::run(&cfg).unwrap()
    }

    /// Every table has its columns once, all of one length, and null only
    /// where the column is nullable; every buffer has the length Arrow's
    /// layout gives it.
    #[test]
    fn every_table_is_rectangular_and_nulls_are_declared() {
        let tables = run().tables().unwrap();
        assert_eq!(tables.iter().map(|t| t.name).collect::<Vec<_>>(), TABLES);
        for t in &tables {
            let n = t.columns[0].len;
            let mut names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), t.columns.len(), "{}: a column twice", t.name);
            for c in &t.columns {
                let at = format!("{}.{}", t.name, c.name);
                assert_eq!(c.len, n, "{at}");
                assert!(c.nullable || c.null_count == 0, "{at}");
                let nulls = (0..n).filter(|&i| c.cell(i) == Cell::Null).count();
                assert_eq!(nulls, c.null_count, "{at}");
                assert_eq!(
                    c.validity.len(),
                    if c.null_count > 0 { n.div_ceil(8) } else { 0 },
                    "{at}"
                );
                match c.ty {
                    ColumnType::String => assert_eq!(c.offsets.len(), 4 * (n + 1), "{at}"),
                    ColumnType::Bool => assert_eq!(c.data.len(), n.div_ceil(8), "{at}"),
                    ColumnType::UInt32 => assert_eq!(c.data.len(), 4 * n, "{at}"),
                    _ => assert_eq!(c.data.len(), 8 * n, "{at}"),
                }
            }
        }
    }

    /// The subflow table carries when a subflow event added a subflow, and
    /// the flows table derives `retransmissions` as the sum of fast and
    /// timeout retransmissions.
    #[test]
    fn subflows_carry_their_events_and_flows_their_retransmissions() {
        let r = run();
        let col = |t: &str, c: &str| -> Vec<Cell> {
            let t = r.table(t).unwrap();
            let c = t.columns.iter().find(|x| x.name == c).unwrap();
            (0..c.len).map(|i| c.cell(i)).collect()
        };
        let added = col("mptcp_subflows", "added_ns");
        assert_eq!(added.len(), 2);
        assert_eq!(added[0], Cell::Null);
        assert_eq!(added[1], r.mptcp_connections[0].subflows[1].added_ns.into());
        let f = &r.tcp_flows[0];
        assert_eq!(
            col("flows", "retransmissions")[0],
            (f.retransmits_fast + f.retransmits_rto).into()
        );
        assert_eq!(col("flows", "kind"), ["tcp".into(), "mptcp".into()]);
        assert!(!col("tcp_traces", "time_ns").is_empty());
        // The type names are Arrow's.
        assert_eq!(ColumnType::UInt32.name(), "uint32");
        assert_eq!(ColumnType::Float64.name(), "float64");
        assert!(r.table("nothing").is_err());
    }

    /// Nulls, booleans and strings laid out as Arrow has them; a value the
    /// type cannot hold is an error naming the column, not a panic.
    #[test]
    fn columns_follow_the_arrow_layout() {
        let mut b = Column::new("b", ColumnType::Bool, true);
        for v in [Some(true), None, Some(false), Some(true)] {
            b.push(v.into()).unwrap();
        }
        assert_eq!(
            (b.len, b.null_count, b.validity.clone(), b.data.clone()),
            (4, 1, vec![0b1101], vec![0b1001])
        );
        let mut s = Column::new("s", ColumnType::String, true);
        for v in [Some("ab"), None, Some("c")] {
            s.push(v.into()).unwrap();
        }
        let offsets: Vec<u8> = [0i32, 2, 2, 3].iter().flat_map(|o| o.to_le_bytes()).collect();
        assert_eq!(
            (s.offsets.clone(), s.data.clone(), s.validity.clone()),
            (offsets, b"abc".to_vec(), vec![0b101])
        );
        let mut f = Column::new("f", ColumnType::Float64, false);
        f.push(f64::NAN.into()).unwrap();
        assert_eq!(f.cell(0), Cell::Null);
        let mut i = Column::new("i", ColumnType::Int64, false);
        assert_eq!(
            i.push(u64::MAX.into()).unwrap_err(),
            "i: 18446744073709551615 does not fit int64"
        );
        assert!(i.push(1.5.into()).is_err());
    }
}
