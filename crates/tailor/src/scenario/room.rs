//! Room for one full packet: a switch buffer, a NIC's buffer or a class's queue limit
//! smaller than the largest packet of the transports that use it passes none of those
//! packets, ever. The senders retransmit into it forever (pFabric, NDP and DCTCP spin with
//! nothing completing), so the scenario is refused instead, naming the packet. A
//! mechanism's own room (a pacer's token bucket) is its own check (`net::mechanism`'s
//! `Configured::check`), against the same largest packet.

use super::reader::ScenarioError;
use super::ClassSpec;
use crate::net::topology::{BufferSpec, NetSpec};
use crate::transport::TransportConfig;

/// The largest packet among `transports` (those the classes use): its bytes on the wire
/// and its transport's name.
pub(super) fn largest(transports: &[TransportConfig], classes: &[ClassSpec]) -> Option<(u64, &'static str)> {
    classes
        .iter()
        .map(|c| &transports[c.transport])
        .map(|t| (t.full_packet(), t.name()))
        .max_by_key(|(bytes, _)| *bytes)
}

/// "a full \"dctcp\" packet is 1514B on the wire (payload and headers)".
pub(super) fn packet(bytes: u64, name: &str) -> String {
    format!("a full \"{name}\" packet is {bytes}B on the wire, payload and headers")
}

/// Refuses a buffer, queue limit or token bucket that cannot hold one full packet of the
/// transports whose packets it holds.
pub(super) fn check(
    net: &NetSpec,
    transports: &[TransportConfig],
    classes: &[ClassSpec],
    file: &str,
) -> Result<(), ScenarioError> {
    let error = |path: String, message: String| ScenarioError { file: file.to_string(), path, message };
    let Some((full, name)) = largest(transports, classes) else { return Ok(()) };
    match net.buffer {
        BufferSpec::PerPort { bytes } if bytes < full => {
            let msg = format!(
                "\"{bytes}B\" is below one full packet ({}); accepted: at least \"{full}B\"",
                packet(full, name)
            );
            return Err(error("switch.buffer_size".into(), msg));
        }
        // An empty port takes a packet while it is within alpha × the free buffer.
        BufferSpec::Shared { bytes, alpha } if (bytes as f64 * alpha.min(1.0)) < full as f64 => {
            let need = (full as f64 / alpha.min(1.0)).ceil() as u64;
            let msg = format!(
                "\"{bytes}B\" with alpha = {alpha} lets a port hold less than one full packet ({}); accepted: at least \"{need}B\" with this alpha",
                packet(full, name)
            );
            return Err(error("switch.buffer_size".into(), msg));
        }
        _ => {}
    }
    if let Some(bytes) = net.nic_buffer.filter(|b| *b < full) {
        let msg =
            format!("\"{bytes}B\" is below one full packet ({}); accepted: at least \"{full}B\"", packet(full, name));
        return Err(error("host.buffer".into(), msg));
    }
    for (i, c) in classes.iter().enumerate() {
        let t = &transports[c.transport];
        if let Some(limit) = c.queue.queue_limit.filter(|l| *l < t.full_packet()) {
            let full = t.full_packet();
            let msg = format!(
                "\"{limit}B\" is below one full packet ({}); accepted: at least \"{full}B\"",
                packet(full, t.name())
            );
            return Err(error(format!("class[{i}].queue_limit"), msg));
        }
    }
    Ok(())
}
