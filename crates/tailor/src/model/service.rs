//! How the bottleneck serves its queues in one time step (SWP §4.2 eqs. 8–10, §4.3).
//!
//! In the fluid limit DRR, WFQ and round robin all become generalized processor sharing:
//! every backlogged queue k receives C·w_k / Σ_{backlogged} w_k, and what a queue cannot
//! use goes to the others in proportion to their weights (water-filling). Strict priority
//! serves levels in order. FIFO is one queue shared by every class.

/// Serves `demand[k]` bytes (what each queue holds this step) with `budget` bytes of
/// link, sharing by `weights` (GPS); returns the bytes served per queue.
pub fn gps(demand: &[f64], weights: &[f64], budget: f64) -> Vec<f64> {
    let mut served = vec![0.0; demand.len()];
    let mut open: Vec<usize> = (0..demand.len()).filter(|&k| demand[k] > 0.0).collect();
    let mut left = budget;
    while !open.is_empty() && left > 0.0 {
        let wsum: f64 = open.iter().map(|&k| weights[k]).sum();
        // Queues that need less than their share are served fully; the rest share again.
        let (small, big): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&k| demand[k] - served[k] <= left * weights[k] / wsum);
        if small.is_empty() {
            for &k in &big {
                served[k] += left * weights[k] / wsum;
            }
            return served;
        }
        for &k in &small {
            left -= demand[k] - served[k];
            served[k] = demand[k];
        }
        open = big;
    }
    served
}

/// Serves queues in index order (0 first) until the budget runs out.
pub fn priority(demand: &[f64], budget: f64) -> Vec<f64> {
    let mut left = budget;
    demand
        .iter()
        .map(|&d| {
            let s = d.min(left);
            left -= s;
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gps_shares_by_weight_and_redistributes_what_a_queue_cannot_use() {
        let s = gps(&[100.0, 100.0, 100.0], &[1.0, 2.0, 1.0], 40.0);
        assert_eq!(s, vec![10.0, 20.0, 10.0]);
        // Queue 0 needs only 2: its unused share goes to 1 and 2 as 2:1.
        let s = gps(&[2.0, 100.0, 100.0], &[1.0, 2.0, 1.0], 40.0);
        assert!(
            (s[0] - 2.0).abs() < 1e-9 && (s[1] - 25.333333333).abs() < 1e-6 && (s[2] - 12.666666666).abs() < 1e-6,
            "{s:?}"
        );
        assert_eq!(gps(&[0.0, 5.0], &[1.0, 1.0], 40.0), vec![0.0, 5.0]);
    }

    #[test]
    fn priority_serves_levels_in_order() {
        assert_eq!(priority(&[5.0, 30.0, 10.0], 20.0), vec![5.0, 15.0, 0.0]);
    }
}
