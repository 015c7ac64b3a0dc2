//! [`SessionContextExt`]: flatstream tables on a `SessionContext`.

use crate::format::{EXTENSIONS, FlatstreamFormat, FlatstreamFormatFactory};
use crate::options::FlatstreamOptions;
use datafusion::common::Result;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::listing_table_factory::ListingTableFactory;
use datafusion::execution::context::SessionContext;
use futures::future::BoxFuture;
use std::sync::Arc;

/// flatstream tables on a [`SessionContext`].
///
/// ```no_run
/// use flatstream::sql::datafusion::prelude::SessionContext;
/// use flatstream::sql::{FlatstreamOptions, SessionContextExt};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> flatstream::sql::datafusion::error::Result<()> {
/// let ctx = SessionContext::new();
/// ctx.register_flatstream(
///     "telemetry",
///     "captures/",
///     FlatstreamOptions::with_schema("telemetry.bfbs"),
/// )
/// .await?;
/// ctx.sql("SELECT device_id, avg(value) FROM telemetry GROUP BY device_id")
///     .await?
///     .show()
///     .await?;
/// # Ok(()) }
/// ```
pub trait SessionContextExt {
    /// Registers the format under every name of [`EXTENSIONS`] (for `STORED AS FLATSTREAM`
    /// and for paths read as tables), and the session setting [`FlatstreamOptions`] (`SET
    /// flatstream.schema = '…'`) if the session has none yet. Idempotent: a second call keeps
    /// the settings made since the first.
    fn register_flatstream_format(&self) -> Result<()>;

    /// Sets the session's [`FlatstreamOptions`]: the options of every table that gives none
    /// of its own (a path read as a table, `SELECT … FROM 'captures/*.fstream'`), and the
    /// defaults of the others. Registers the format first, as
    /// [`register_flatstream_format`](Self::register_flatstream_format) does.
    fn set_flatstream_options(&self, options: FlatstreamOptions) -> Result<()>;

    /// Registers the table `name` of the flatstream files at `table_path`: a file, a glob
    /// (`captures/*.fs`) or a directory (its `.fstream` files, as `CREATE EXTERNAL TABLE`
    /// reads one), read with `options` (not the session's). Loads the schema and checks the options
    /// now; the files are read by queries. Registers the format as
    /// [`register_flatstream_format`](Self::register_flatstream_format) does.
    fn register_flatstream<'a>(
        &'a self,
        name: &'a str,
        table_path: &'a str,
        options: FlatstreamOptions,
    ) -> BoxFuture<'a, Result<()>>;
}

impl SessionContextExt for SessionContext {
    fn register_flatstream_format(&self) -> Result<()> {
        let state = self.state_ref();
        let mut state = state.write();
        for ext in EXTENSIONS {
            state.register_file_format(Arc::new(FlatstreamFormatFactory::new(ext)), true)?;
        }
        // `CREATE EXTERNAL TABLE … STORED AS FLATSTREAM` finds its table factory by the name
        // (upper case, as DataFusion registers its own formats), and the listing table
        // factory finds the format registered above.
        state.table_factories_mut().insert(
            "FLATSTREAM".to_owned(),
            Arc::new(ListingTableFactory::new()),
        );
        let extensions = &mut state.config_mut().options_mut().extensions;
        if extensions.get::<FlatstreamOptions>().is_none() {
            extensions.insert(FlatstreamOptions::default());
        }
        Ok(())
    }

    fn set_flatstream_options(&self, options: FlatstreamOptions) -> Result<()> {
        self.register_flatstream_format()?;
        let state = self.state_ref();
        state
            .write()
            .config_mut()
            .options_mut()
            .extensions
            .insert(options);
        Ok(())
    }

    fn register_flatstream<'a>(
        &'a self,
        name: &'a str,
        table_path: &'a str,
        options: FlatstreamOptions,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            self.register_flatstream_format()?;
            let spec = options.resolve()?;
            let format = FlatstreamFormat::new(spec);
            // A file or a glob names the files; a directory is read for its `.fstream` files.
            let url = ListingTableUrl::parse(table_path)?;
            let ext = if url.is_collection() && url.get_glob().is_none() {
                ".fstream"
            } else {
                ""
            };
            let listing = ListingOptions::new(Arc::new(format)).with_file_extension(ext);
            self.register_listing_table(name, table_path, listing, None, None)
                .await
        })
    }
}
