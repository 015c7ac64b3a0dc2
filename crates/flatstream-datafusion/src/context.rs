//! [`SessionContextExt`]: flatstream tables on a `SessionContext`.

use crate::format::{EXTENSIONS, FlatstreamFormat, FlatstreamFormatFactory};
use crate::options::FlatstreamOptions;
use datafusion::catalog::{DynamicFileCatalog, TableProvider, UrlTableFactory};
use datafusion::common::Result;
use datafusion::datasource::dynamic_file::DynamicListTableFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::listing_table_factory::ListingTableFactory;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::context::{SessionContext, SessionState};
use datafusion_session::SessionStore;
use futures::StreamExt;
use futures::future::BoxFuture;
use std::collections::HashMap;
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

    /// This context with paths read as tables (`SELECT * FROM 'captures/'`), as
    /// `SessionContext::enable_url_table` does, except that a directory is read for its
    /// flatstream files: those with the extension (of [`EXTENSIONS`]) of the first of them,
    /// whatever else the directory holds (a `README.txt`). A file or a glob is read as
    /// DataFusion reads it.
    fn enable_flatstream_url_table(self) -> SessionContext
    where
        Self: Sized;
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

    fn enable_flatstream_url_table(self) -> SessionContext {
        let catalogs = Arc::clone(self.state_ref().read().catalog_list());
        let store = SessionStore::new();
        let factory = Arc::new(StreamUrlTables {
            inner: DynamicListTableFactory::new(SessionStore::new()),
            store,
        });
        let session_id = self.session_id();
        let ctx: SessionContext = SessionStateBuilder::new_from_existing(self.state())
            .with_session_id(session_id)
            .with_catalog_list(Arc::new(DynamicFileCatalog::new(
                catalogs,
                Arc::clone(&factory) as Arc<dyn UrlTableFactory>,
            )))
            .build()
            .into();
        factory.store.with_state(ctx.state_weak_ref());
        factory
            .inner
            .session_store()
            .with_state(ctx.state_weak_ref());
        ctx
    }
}

/// Paths read as tables, a directory for its flatstream files
/// ([`SessionContextExt::enable_flatstream_url_table`]).
#[derive(Debug)]
struct StreamUrlTables {
    /// DataFusion's, for files and globs.
    inner: DynamicListTableFactory,
    store: SessionStore,
}

#[async_trait::async_trait]
impl UrlTableFactory for StreamUrlTables {
    async fn try_new(&self, url: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let Ok(table_url) = ListingTableUrl::parse(url) else {
            return Ok(None);
        };
        if !table_url.is_collection() || table_url.get_glob().is_some() {
            return self.inner.try_new(url).await;
        }
        let Some(state) = self.store.get_session().upgrade().and_then(|session| {
            session
                .read()
                .as_any()
                .downcast_ref::<SessionState>()
                .cloned()
        }) else {
            return Ok(None);
        };
        let store = state.runtime_env().object_store(&table_url)?;
        // The extension of the first flatstream file: the files with it are the table.
        let mut ext = None;
        {
            let mut files = table_url.list_all_files(&state, store.as_ref(), "").await?;
            while let Some(file) = files.next().await {
                let file = file?;
                let found = file
                    .location
                    .extension()
                    .filter(|e| EXTENSIONS.contains(e))
                    .map(str::to_owned);
                if found.is_some() {
                    ext = found;
                    break;
                }
            }
        }
        let Some(ext) = ext else {
            return Ok(None);
        };
        let Some(factory) = state.get_file_format_factory(&ext) else {
            return Ok(None);
        };
        let format = factory.create(&state, &HashMap::new())?;
        let options = ListingOptions::new(format).with_file_extension(format!(".{ext}"));
        let config = ListingTableConfig::new(table_url)
            .with_listing_options(options)
            .infer_schema(&state)
            .await?;
        Ok(Some(Arc::new(ListingTable::try_new(config)?)))
    }
}
