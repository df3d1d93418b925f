//! Bytes per traffic class at a port: what waits now, what has been sent.
//!
//! A port updates both on every packet. Held in a vector of their own they cost every
//! packet a cache line apart from the port's, which on a fabric of a thousand hosts is
//! a line fetched from memory (docs/performance.md, "A thousand hosts"); the first two
//! classes (most scenarios have one or two) live inside the port instead.

/// A count per class index, classes 0 and 1 inline and the rest in a vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerClass {
    inline: [u64; 2],
    /// One past the highest class ever added to (so a report lists the classes seen).
    seen: usize,
    more: Vec<u64>,
}

impl PerClass {
    pub fn get(&self, class: usize) -> u64 {
        match class {
            0 | 1 => self.inline[class],
            _ => self.more.get(class - 2).copied().unwrap_or(0),
        }
    }
    pub fn add(&mut self, class: usize, bytes: u64) {
        *self.slot(class) += bytes;
    }
    /// Takes back bytes added before (a class's count never goes below zero).
    pub fn sub(&mut self, class: usize, bytes: u64) {
        *self.slot(class) -= bytes;
    }
    /// The counts of classes 0 up to the highest one added to.
    pub fn to_vec(&self) -> Vec<u64> {
        (0..self.seen).map(|c| self.get(c)).collect()
    }

    fn slot(&mut self, class: usize) -> &mut u64 {
        self.seen = self.seen.max(class + 1);
        match class {
            0 | 1 => &mut self.inline[class],
            _ => {
                if self.more.len() <= class - 2 {
                    self.more.resize(class - 1, 0);
                }
                &mut self.more[class - 2]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PerClass;

    #[test]
    fn counts_per_class_inline_and_beyond_and_lists_the_classes_seen() {
        let mut c = PerClass::default();
        assert_eq!(c.to_vec(), Vec::<u64>::new());
        c.add(1, 100);
        c.add(4, 7);
        c.add(1, 50);
        c.sub(1, 30);
        assert_eq!((c.get(0), c.get(1), c.get(3), c.get(4), c.get(9)), (0, 120, 0, 7, 0));
        assert_eq!(c.to_vec(), vec![0, 120, 0, 0, 7]);
        c.sub(4, 7);
        assert_eq!(c.to_vec(), vec![0, 120, 0, 0, 0], "a class once seen stays listed");
    }
}
