//! Arena indices. Components name each other by index, never by pointer.

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(/// A node (host or router).
    NodeId);
id_type!(/// A unidirectional link.
    LinkId);
id_type!(/// A network address.
    AddrId);
id_type!(/// A packet slot in the [`crate::wire::PacketPool`].
    PacketId);
id_type!(/// A transport endpoint that packets are delivered to (a UDP sink, a TCP socket).
    EndpointId);
