//! What `verify --schema` checks each payload with: flatstream-reflect's compiled verifier
//! (the command now), and `flatbuffers-reflection`'s verifier as the command called it before
//! (up to commit `f0a4200`, `crates/flatstream-cli/src/schema.rs` and
//! `crates/flatstream-reflect/src/verify.rs` of its parent).

use flatbuffers::VerifierOptions;
use flatbuffers_reflection::{SafeBuffer, reflection};
use std::cell::Cell;

/// A verifier of payloads against a schema's message table, shared by the threads.
pub trait SchemaCheck: Sync {
    /// Whether `payload` is a valid FlatBuffer of the message table; the reason if not.
    fn verify(&self, payload: &[u8]) -> Result<(), String>;
}

/// `verify --schema` now: [`flatstream_reflect::Verifier`], compiled once from the schema, as
/// the command's `Schema::load` builds it and its `Verifier::verify` calls it.
#[derive(Debug)]
pub struct Compiled {
    verifier: flatstream_reflect::Verifier,
    root_name: String,
}

impl Compiled {
    /// Loads the binary schema `bfbs` and compiles the verifier of its root table.
    pub fn load(bfbs: &[u8]) -> Result<Self, flatstream_reflect::Error> {
        let schema = flatstream_reflect::parse(bfbs)?;
        let root = flatstream_reflect::root_table(&schema, None)?;
        let verifier = flatstream_reflect::Verifier::new(&schema, root)?;
        let root_name = schema.objects().get(root).name().to_owned();
        Ok(Compiled {
            verifier,
            root_name,
        })
    }
}

impl SchemaCheck for Compiled {
    #[inline]
    fn verify(&self, payload: &[u8]) -> Result<(), String> {
        self.verifier
            .verify(payload)
            .map_err(|why| format!("not a valid {}: {why}", self.root_name))
    }
}

/// `verify --schema` before: `flatbuffers-reflection`'s verifier (`SafeBuffer`) with the
/// default `VerifierOptions`, behind the length check and the panic guard the command had
/// (that verifier indexes a union's members with the type it reads from the buffer).
#[derive(Debug)]
pub struct Reflection<'s> {
    schema: reflection::Schema<'s>,
    root_name: String,
    options: VerifierOptions,
}

impl<'s> Reflection<'s> {
    /// Loads the binary schema `bfbs` (checked by flatstream-reflect, as the command loaded it)
    /// for verifying its root table.
    pub fn load(bfbs: &'s [u8]) -> Result<Self, flatstream_reflect::Error> {
        let schema = flatstream_reflect::parse(bfbs)?;
        let root = flatstream_reflect::root_table(&schema, None)?;
        let root_name = schema.objects().get(root).name().to_owned();
        Ok(Reflection {
            schema,
            root_name,
            options: VerifierOptions::default(),
        })
    }
}

impl SchemaCheck for Reflection<'_> {
    #[inline]
    fn verify(&self, payload: &[u8]) -> Result<(), String> {
        let why = match catch_quietly(|| verify_reflection(&self.schema, payload, &self.options)) {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(e)) => e,
            Err(panic) => format!("the reflection verifier failed on it ({panic})"),
        };
        Err(format!("not a valid {}: {why}", self.root_name))
    }
}

/// The old `flatstream_reflect::verify`: a payload too short for a root offset is refused
/// before `SafeBuffer` sees it.
fn verify_reflection(
    schema: &reflection::Schema<'_>,
    payload: &[u8],
    options: &VerifierOptions,
) -> Result<(), String> {
    if payload.len() < 4 {
        return Err(format!(
            "its {} bytes are too few for a FlatBuffer (4 at least, the offset of its root table)",
            payload.len()
        ));
    }
    match SafeBuffer::new_with_options(payload, schema, options) {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

std::thread_local! {
    /// Set while a verifier runs: the command's panic hook stayed silent then.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// The command's `catch_quietly`: runs `f`, turning a panic into its message.
fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the verifier panicked".to_owned())
    })
}
