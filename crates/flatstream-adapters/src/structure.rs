//! `StructuralValidator`: checks that a payload is a well-formed FlatBuffer table without
//! knowing its schema.

use crate::validate::Validator;
use alloc::format;
use flatbuffers::VerifierOptions;
use flatstream_core::{Error, Result};

/// Checks that a payload is a well-formed FlatBuffer whose root is a table, and follows the
/// references it can recognize into nested tables, vectors and strings, without a schema and
/// without a generated type. Named `"structure"` in errors.
///
/// Use it where the schema is unknown (a relay, a recorder, a broker); when you have the
/// flatc-generated root type, [`TypedValidator`](crate::TypedValidator) is exact and should be
/// preferred.
///
/// # What is checked
///
/// Every table it visits (the root, and each nested table it recognizes):
///
/// * the table starts inside the payload, 4-byte aligned, and its signed offset leads to a
///   vtable inside the payload, 2-byte aligned;
/// * the vtable's length is even, at least 4, and the vtable lies inside the payload;
/// * the table's inline size (from the vtable) is at least 4 and the table lies inside the
///   payload;
/// * every present field's offset is at least 4 and less than the table's inline size.
///
/// Then, unless [`root_only`](Self::root_only) is set, it descends. A schema would say which
/// fields are references; without one, a field is taken as a reference when
///
/// * it is a 4-byte field: the next present field of the table (by offset), or the end of the
///   table, starts 4 to 7 bytes after it (the field and the padding that may follow it; a field
///   of 1 or 2 bytes cannot be followed by that much padding, and one of 8 is at least 8 wide);
/// * its slot is 4-byte aligned in the payload;
/// * its value is a non-zero forward offset to a 4-byte-aligned position with at least 4 bytes
///   of payload left.
///
/// What a reference points at must be one of:
///
/// * a **table**, recognized by its header: its signed offset leads to a plausible vtable (as
///   above) placed where FlatBuffers builders place vtables, either immediately before the table
///   or after it (shared). The table must then pass every check, and is itself descended; but
///   if its own extent or field entries fail, its header is taken for a vector's count that
///   only looked like one, and the next reading is tried;
/// * otherwise a **vector or string**: a `u32` element count `n` followed by at least `n` bytes
///   inside the payload (every element is at least one byte). Elements are not descended: their
///   type is not in the buffer.
///
/// Anything else is rejected. Limits come from [`VerifierOptions`]: `max_depth` (nesting of
/// tables, the root at depth 1), `max_tables` (tables visited, shared ones counted each time),
/// and `max_apparent_size` (bytes of tables, vtables and vectors visited). Offsets only point
/// forward, so the walk always ends; its work is bounded by these limits. `max_depth` is also
/// the recursion depth: keep it in the hundreds at most. A table with more than 256 present
/// fields is checked but not descended. The walk allocates nothing unless it rejects.
///
/// # What is not checked, and the one way it can be wrong
///
/// Scalar values, field types, required fields, unions, UTF-8 and terminators of strings, and
/// the elements of vectors are not checked: that takes the schema. Nor is every corruption of a
/// nested table's own header: a table whose extent or field entries are damaged is read as the
/// vector its first bytes could also be, and passes if that vector fits. (Random well-formed
/// messages showed that both readings happen in valid data; refusing valid messages was the
/// worse error.)
///
/// A 4-byte scalar field (an `int`, `uint`, `float` or 4-byte struct) whose value happens to be
/// a small multiple of 4 looks like a reference. It is then accepted as long as it lands on bytes
/// shaped like a table or a vector, and **rejected otherwise**: on such schemas, a valid message
/// can be refused. Fields of 1, 2 or 8 bytes (`bool`, `short`, `long`, `ulong`, `double`, …) are
/// never mistaken, so schemas without 4-byte scalars are safe (the telemetry schema is: every
/// one of its readings passes). If your schemas have 4-byte scalar fields and you cannot use
/// `TypedValidator`, use [`root_only`](Self::root_only), which never descends and never
/// guesses.
///
/// ```
/// use flatbuffers::FlatBufferBuilder;
/// use flatstream::adapters::{StructuralValidator, Validator};
///
/// // A table whose field 0 is a nested table holding a string.
/// let mut b = FlatBufferBuilder::new();
/// let name = b.create_string("boiler");
/// let start = b.start_table();
/// b.push_slot_always(4, name);
/// let child = b.end_table(start);
/// let start = b.start_table();
/// b.push_slot_always(4, child);
/// let root = b.end_table(start);
/// b.finish(root, None);
/// let mut payload = b.finished_data().to_vec();
///
/// let v = StructuralValidator::new();
/// assert!(v.validate(&payload, 0).is_ok());
///
/// // Corrupt the nested string's length: the root table is still fine, the payload is not.
/// let at = payload.windows(6).position(|w| w == b"boiler").unwrap() - 4;
/// payload[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
/// assert!(StructuralValidator::new().root_only().validate(&payload, 0).is_ok());
/// assert!(v.validate(&payload, 0).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StructuralValidator {
    opts: VerifierOptions,
    /// Set by [`root_only`](Self::root_only); by default the validator descends.
    root_only: bool,
}

impl StructuralValidator {
    /// A validator that descends, with the verifier's default limits (depth 64, a million
    /// tables, 2 GiB apparent size). The same as `StructuralValidator::default()`.
    pub fn new() -> Self {
        Self::default()
    }

    /// A validator that descends, with the given limits.
    pub fn with_options(opts: VerifierOptions) -> Self {
        StructuralValidator {
            opts,
            root_only: false,
        }
    }

    /// Checks the root table only, and never guesses which fields are references.
    pub fn root_only(mut self) -> Self {
        self.root_only = true;
        self
    }

    /// The limits in force.
    pub fn options(&self) -> &VerifierOptions {
        &self.opts
    }

    /// Whether the validator descends past the root table.
    pub fn descends(&self) -> bool {
        !self.root_only
    }
}

impl Validator for StructuralValidator {
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        let mut walk = Walk {
            buf: payload,
            opts: &self.opts,
            descend: !self.root_only,
            tables: 0,
            apparent: 0,
        };
        walk.root().map_err(|fault| fault.into_error(offset))
    }
}

/// What went wrong, and at which byte of the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fault {
    kind: Kind,
    at: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Short,
    TableOutOfBounds,
    TableUnaligned,
    VtableOutOfBounds,
    VtableUnaligned,
    VtableMalformed,
    ObjectTooSmall,
    ObjectOutOfBounds,
    FieldOutsideTable,
    NotAnObject,
    TooDeep,
    TooManyTables,
    TooLarge,
}

impl Fault {
    /// Whether this is a shape fault of the table at `pos` itself (it runs past the end of the
    /// payload, or an entry of its vtable points outside it), as opposed to a limit or a fault
    /// further down.
    fn is_own_shape(&self, pos: usize, header: &Header) -> bool {
        match self.kind {
            Kind::ObjectOutOfBounds => self.at == pos,
            Kind::FieldOutsideTable => {
                (header.vtable..header.vtable + header.vtable_len).contains(&self.at)
            }
            _ => false,
        }
    }

    #[cold]
    #[inline(never)]
    fn into_error(self, offset: u64) -> Error {
        let what = match self.kind {
            Kind::Short => "payload is too short for a root offset",
            Kind::TableOutOfBounds => "table lies outside the payload",
            Kind::TableUnaligned => "table is not 4-byte aligned",
            Kind::VtableOutOfBounds => "vtable lies outside the payload",
            Kind::VtableUnaligned => "vtable is not 2-byte aligned",
            Kind::VtableMalformed => "vtable length is odd or under 4",
            Kind::ObjectTooSmall => "table's inline size is under 4",
            Kind::ObjectOutOfBounds => "table extends past the end of the payload",
            Kind::FieldOutsideTable => "field offset lies outside its table",
            Kind::NotAnObject => "reference points at neither a table nor a vector that fits",
            Kind::TooDeep => "tables are nested deeper than max_depth",
            Kind::TooManyTables => "more tables than max_tables",
            Kind::TooLarge => "apparent size is over max_apparent_size",
        };
        Error::validation(
            "structure",
            format!("{what} (payload byte {})", self.at),
            offset,
        )
    }
}

type Step = core::result::Result<(), Fault>;

/// Tables with more present fields than this are checked but not descended: finding each
/// field's width takes a sorted copy of the offsets, kept on the stack.
const MAX_DESCENDED_FIELDS: usize = 256;

fn fault(kind: Kind, at: usize) -> Step {
    Err(Fault { kind, at })
}

/// Whether a table's vtable is where FlatBuffers builders put it: immediately before the table
/// (written just after it, back to front), or after it (an identical vtable written earlier and
/// shared). A vector's or string's length read as a signed offset almost never satisfies this.
fn builder_placed(table: usize, header: &Header) -> bool {
    header.vtable > table || table - header.vtable == header.vtable_len
}

/// A table whose header and fields have been checked.
struct Table {
    pos: usize,
    vtable: usize,
    vtable_len: usize,
    size: usize,
}

struct Walk<'a> {
    buf: &'a [u8],
    opts: &'a VerifierOptions,
    descend: bool,
    tables: usize,
    apparent: usize,
}

/// A table's vtable position, vtable length and inline size, if its header is plausible.
struct Header {
    vtable: usize,
    vtable_len: usize,
    size: usize,
}

impl Walk<'_> {
    fn root(&mut self) -> Step {
        let Some(root) = self.u32_at(0) else {
            return fault(Kind::Short, 0);
        };
        self.table(root as usize, 1)
    }

    #[inline]
    fn u16_at(&self, pos: usize) -> Option<usize> {
        let bytes = self.buf.get(pos..pos.checked_add(2)?)?;
        Some(usize::from(u16::from_le_bytes([bytes[0], bytes[1]])))
    }

    #[inline]
    fn u32_at(&self, pos: usize) -> Option<u32> {
        let bytes = self.buf.get(pos..pos.checked_add(4)?)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Parses and bounds-checks the header of the table at `pos` (everything but its fields).
    fn header(&self, pos: usize) -> core::result::Result<Header, Fault> {
        let err = |kind| Err(Fault { kind, at: pos });
        if pos % 4 != 0 {
            return err(Kind::TableUnaligned);
        }
        let Some(soffset) = self.u32_at(pos) else {
            return err(Kind::TableOutOfBounds);
        };
        // The vtable is at `pos - soffset`, with `soffset` signed.
        let soffset = i64::from(i32::from_le_bytes(soffset.to_le_bytes()));
        let vtable = i64::try_from(pos)
            .ok()
            .and_then(|p| p.checked_sub(soffset))
            .and_then(|v| usize::try_from(v).ok());
        let Some(vtable) = vtable else {
            return err(Kind::VtableOutOfBounds);
        };
        if vtable % 2 != 0 {
            return err(Kind::VtableUnaligned);
        }
        let (Some(vtable_len), Some(size)) = (self.u16_at(vtable), self.u16_at(vtable + 2)) else {
            return err(Kind::VtableOutOfBounds);
        };
        if vtable_len < 4 || vtable_len % 2 != 0 {
            return err(Kind::VtableMalformed);
        }
        if vtable + vtable_len > self.buf.len() {
            return err(Kind::VtableOutOfBounds);
        }
        if size < 4 {
            return err(Kind::ObjectTooSmall);
        }
        Ok(Header {
            vtable,
            vtable_len,
            size,
        })
    }

    fn count(&mut self, bytes: usize, at: usize) -> Step {
        self.apparent = self.apparent.saturating_add(bytes);
        if self.apparent > self.opts.max_apparent_size {
            return fault(Kind::TooLarge, at);
        }
        Ok(())
    }

    fn table(&mut self, pos: usize, depth: usize) -> Step {
        if depth > self.opts.max_depth {
            return fault(Kind::TooDeep, pos);
        }
        self.tables += 1;
        if self.tables > self.opts.max_tables {
            return fault(Kind::TooManyTables, pos);
        }
        let Header {
            vtable,
            vtable_len,
            size,
        } = self.header(pos)?;
        if pos.checked_add(size).is_none_or(|end| end > self.buf.len()) {
            return fault(Kind::ObjectOutOfBounds, pos);
        }
        self.count(vtable_len + size, pos)?;
        let mut present = 0;
        // In bounds: the whole vtable was checked above.
        let entries = self.buf.get(vtable + 4..vtable + vtable_len).unwrap_or(&[]);
        for (i, entry) in entries.chunks_exact(2).enumerate() {
            let field = usize::from(u16::from_le_bytes([entry[0], entry[1]]));
            if field == 0 {
                continue;
            }
            if field < 4 || field >= size {
                return fault(Kind::FieldOutsideTable, vtable + 4 + 2 * i);
            }
            present += 1;
        }
        if !self.descend || present == 0 {
            return Ok(());
        }
        // Most tables have a few fields: sort their offsets in a small array.
        let table = Table {
            pos,
            vtable,
            vtable_len,
            size,
        };
        if present <= 16 {
            self.descend_into::<16>(&table, depth)
        } else if present <= MAX_DESCENDED_FIELDS {
            self.descend_into::<MAX_DESCENDED_FIELDS>(&table, depth)
        } else {
            Ok(())
        }
    }

    /// Follows the references of a table whose fields were checked, at most `N` of them.
    fn descend_into<const N: usize>(&mut self, table: &Table, depth: usize) -> Step {
        let mut fields = [0u16; N];
        let mut present = 0;
        let entries = self
            .buf
            .get(table.vtable + 4..table.vtable + table.vtable_len)
            .unwrap_or(&[]);
        for entry in entries.chunks_exact(2) {
            let field = u16::from_le_bytes([entry[0], entry[1]]);
            if field == 0 {
                continue;
            }
            if let Some(slot) = fields.get_mut(present) {
                *slot = field;
                present += 1;
            }
        }
        let fields = &mut fields[..present];
        fields.sort_unstable();
        for (i, &field) in fields.iter().enumerate() {
            let field = usize::from(field);
            let end = fields
                .get(i + 1)
                .map_or(table.size, |&next| usize::from(next));
            let slot = table.pos + field;
            // 4 to 7 bytes: a 4-byte field and the alignment padding that may follow it.
            if (4..8).contains(&(end - field)) && slot % 4 == 0 {
                self.reference(slot, depth)?;
            }
        }
        Ok(())
    }

    /// Follows the field at `slot` if it looks like a reference (see the type's docs).
    fn reference(&mut self, slot: usize, depth: usize) -> Step {
        let value = self.u32_at(slot).unwrap_or(0) as usize;
        let Some(target) = slot.checked_add(value) else {
            return Ok(());
        };
        if value == 0 || target % 4 != 0 || target.saturating_add(4) > self.buf.len() {
            return Ok(());
        }
        if let Ok(header) = self.header(target)
            && builder_placed(target, &header)
        {
            let (tables, apparent) = (self.tables, self.apparent);
            match self.table(target, depth + 1) {
                Ok(()) => return Ok(()),
                // A vector's count can read as the header of a table whose vtable happens to be
                // among the bytes just before it (zeros, then a `u64` with `0x22` in the right
                // place, did it), and that table's size and fields are then whatever those
                // bytes say. If the table fails on its own shape, read the reference as a vector.
                Err(fault) if fault.is_own_shape(target, &header) => {
                    self.tables = tables;
                    self.apparent = apparent;
                }
                Err(fault) => return Err(fault),
            }
        }
        // A vector or a string: a count, then at least that many bytes.
        let count = self.u32_at(target).unwrap_or(u32::MAX) as usize;
        match (target + 4).checked_add(count) {
            Some(end) if end <= self.buf.len() => self.count(4 + count, target),
            _ => fault(Kind::NotAnObject, target),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use flatbuffers::{FlatBufferBuilder, WIPOffset};

    fn nested(depth: usize) -> Vec<u8> {
        let mut b = FlatBufferBuilder::new();
        let leaf = b.create_string("leaf");
        let start = b.start_table();
        b.push_slot_always(4, leaf);
        let mut table: WIPOffset<_> = b.end_table(start);
        for i in 1..depth {
            let start = b.start_table();
            b.push_slot::<u64>(6, (i as u64 * 1_000_000_007) << 32, 0);
            b.push_slot_always(4, table);
            table = b.end_table(start);
        }
        b.finish(table, None);
        b.finished_data().to_vec()
    }

    fn reason(payload: &[u8], v: &StructuralValidator) -> alloc::string::String {
        match v.validate(payload, 7).unwrap_err() {
            Error::Validation { details, offset } => {
                assert_eq!(offset, 7);
                assert_eq!(details.validator, "structure");
                details.reason.into_owned()
            }
            e => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn accepts_nested_tables_strings_and_vectors() {
        let mut b = FlatBufferBuilder::new();
        let s = b.create_string("hello");
        let bytes = b.create_vector(&[1u8, 2, 3]);
        let longs = b.create_vector(&[1u64 << 40, 2u64 << 40]);
        let start = b.start_table();
        b.push_slot_always(4, s);
        let child = b.end_table(start);
        let children = b.create_vector(&[child, child]);
        let start = b.start_table();
        b.push_slot_always(4, child);
        b.push_slot_always(6, bytes);
        b.push_slot_always(8, longs);
        b.push_slot_always(10, children);
        b.push_slot::<f64>(12, 2.5, 0.0);
        b.push_slot::<u8>(14, 3, 0);
        let root = b.end_table(start);
        b.finish(root, None);
        StructuralValidator::new()
            .validate(b.finished_data(), 0)
            .unwrap();
        StructuralValidator::new().validate(&nested(40), 0).unwrap();
    }

    #[test]
    fn rejects_roots_that_are_not_tables() {
        assert!(reason(&[1, 0], &StructuralValidator::new()).contains("too short"));
        let mut b = FlatBufferBuilder::new();
        let s = b.create_string("a string root is not a table");
        b.finish(s, None);
        assert!(
            StructuralValidator::new()
                .validate(b.finished_data(), 0)
                .is_err()
        );
    }

    #[test]
    fn depth_limit_applies_to_nested_tables_only_when_descending() {
        let deep = nested(70);
        let v = StructuralValidator::new();
        assert!(reason(&deep, &v).contains("max_depth"));
        StructuralValidator::new()
            .root_only()
            .validate(&deep, 0)
            .unwrap();
        let opts = VerifierOptions {
            max_depth: 100,
            ..Default::default()
        };
        StructuralValidator::with_options(opts)
            .validate(&deep, 0)
            .unwrap();
    }

    #[test]
    fn table_and_size_limits() {
        let payload = nested(10);
        let few = VerifierOptions {
            max_tables: 5,
            ..Default::default()
        };
        assert!(reason(&payload, &StructuralValidator::with_options(few)).contains("max_tables"));
        let small = VerifierOptions {
            max_apparent_size: 32,
            ..Default::default()
        };
        assert!(
            reason(&payload, &StructuralValidator::with_options(small))
                .contains("max_apparent_size")
        );
    }

    #[test]
    fn a_corrupt_nested_table_is_caught_below_the_root() {
        // Overwrite each aligned pair of bytes outside the root's vtable with a large value:
        // some of those land in nested tables, vtables or the string, which only a walk that
        // descends can see.
        let clean = nested(3);
        let root = u32::from_le_bytes(clean[..4].try_into().unwrap()) as usize;
        let soffset = i32::from_le_bytes(clean[root..root + 4].try_into().unwrap());
        let root_vtable = usize::try_from(root as i64 - i64::from(soffset)).unwrap();
        let mut caught = 0;
        for at in (0..clean.len() - 4).step_by(2) {
            if at == root_vtable || at == root_vtable + 2 {
                continue;
            }
            let mut bad = clean.clone();
            bad[at..at + 2].copy_from_slice(&0xFFF0u16.to_le_bytes());
            let root_only = StructuralValidator::new().root_only().validate(&bad, 0);
            let deep = StructuralValidator::new().validate(&bad, 0);
            if root_only.is_ok() && deep.is_err() {
                caught += 1;
            }
            // Descending never accepts what the root-only check rejects.
            if root_only.is_err() {
                assert!(deep.is_err(), "byte {at}");
            }
        }
        assert!(
            caught >= 3,
            "only {caught} corruptions caught below the root"
        );
    }

    #[test]
    fn never_panics_on_any_single_byte_corruption() {
        let clean = nested(4);
        for at in 0..clean.len() {
            for value in [0u8, 1, 3, 4, 0x7F, 0x80, 0xFF] {
                let mut bad = clean.clone();
                bad[at] = value;
                let _ = StructuralValidator::new().validate(&bad, 0);
            }
        }
        for len in 0..clean.len() {
            let _ = StructuralValidator::new().validate(&clean[..len], 0);
        }
    }
}
