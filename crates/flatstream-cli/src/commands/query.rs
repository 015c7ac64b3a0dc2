//! `flatstream query`: SQL over streams, on DataFusion through flatstream-datafusion. The SQL
//! names files and globs as tables; each is read through the binary schema given.

use crate::failure::{Failure, Status};
use crate::options::sql::QueryArgs;
#[cfg(feature = "sql")]
use crate::options::sql::QueryFormat;

/// Runs `flatstream query`.
#[cfg(feature = "sql")]
pub(crate) fn run(args: &QueryArgs) -> Result<Status, Failure> {
    imp::run(args)
}

/// Without the `sql` feature, `query` is there only to say so.
#[cfg(not(feature = "sql"))]
pub(crate) fn run(_args: &QueryArgs) -> Result<Status, Failure> {
    Err(crate::failure::without_sql("query"))
}

#[cfg(feature = "sql")]
mod imp {
    use super::{QueryArgs, QueryFormat};
    use crate::failure::{Failure, Status};
    use crate::rows::{check_flat, failure, print};
    use flatstream::sql::datafusion::arrow::datatypes::SchemaRef;
    use flatstream::sql::datafusion::error::DataFusionError;
    use flatstream::sql::datafusion::physical_plan::{displayable, execute_stream};
    use flatstream::sql::datafusion::prelude::SessionContext;
    use flatstream::sql::{FlatstreamOptions, SessionContextExt};
    use std::io::{self, IsTerminal};
    use std::sync::Arc;

    pub(super) fn run(args: &QueryArgs) -> Result<Status, Failure> {
        check_operators(&args.sql)?;
        let mut options =
            FlatstreamOptions::with_schema(args.table.schema.path().to_string_lossy());
        if let Some(root) = &args.table.schema.root_type {
            options = options.root_type(root.as_str());
        }
        if let Some(kind) = args.table.framing.checksum {
            options = options.checksum(kind);
        }
        if let Some(max) = args.table.framing.max_frame_len {
            options.max_frame_len = max;
        }
        options.skip_invalid = args.table.skip_invalid;
        options.verify_unread = args.table.verify_unread;
        options.offset_column = args.table.offset_column;
        // The schema is loaded and the options checked before any SQL: their errors are the
        // user's (status 2), named as the other commands name them.
        options
            .resolve()
            .map_err(|e| Failure::error(schema_error(e, args)))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::io("the query's runtime", e))?;
        runtime.block_on(query(args, options))
    }

    /// How many operators a query may hold. DataFusion's planner and optimizer recurse once
    /// per operator of an expression (`1 + 1 + …` is a chain as deep as it is long), and a
    /// chain of some thousands overflows their stack: the query is refused before planning.
    pub(super) const MAX_OPERATORS: usize = 1_000;

    /// Refuses a query with more than [`MAX_OPERATORS`] operators. The tokenizer is a loop;
    /// SQL it cannot read is left to the parser, which says why.
    fn check_operators(sql: &str) -> Result<(), Failure> {
        use flatstream::sql::datafusion::sql::sqlparser::dialect::GenericDialect;
        use flatstream::sql::datafusion::sql::sqlparser::keywords::Keyword;
        use flatstream::sql::datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
        let Ok(tokens) = Tokenizer::new(&GenericDialect {}, sql).tokenize() else {
            return Ok(());
        };
        let operators = tokens
            .iter()
            .filter(|t| match t {
                Token::Word(w) => matches!(
                    w.keyword,
                    Keyword::AND | Keyword::OR | Keyword::NOT | Keyword::IS | Keyword::LIKE
                ),
                Token::Plus
                | Token::Minus
                | Token::Mul
                | Token::Div
                | Token::Mod
                | Token::StringConcat
                | Token::Eq
                | Token::DoubleEq
                | Token::Neq
                | Token::Lt
                | Token::Gt
                | Token::LtEq
                | Token::GtEq
                | Token::Spaceship
                | Token::Caret
                | Token::Ampersand
                | Token::Pipe
                | Token::ShiftLeft
                | Token::ShiftRight
                | Token::DoubleColon
                | Token::LBracket => true,
                _ => false,
            })
            .count();
        if operators > MAX_OPERATORS {
            return Err(Failure::error(format_args!(
                "the query holds {operators} operators, more than the {MAX_OPERATORS} a query \
                 may hold (the planner recurses once per operator)"
            )));
        }
        Ok(())
    }

    /// A schema error, naming the schema file (flatstream-datafusion names it when it cannot
    /// read it).
    fn schema_error(e: flatstream::sql::Error, args: &QueryArgs) -> String {
        match e {
            flatstream::sql::Error::ReadSchema { .. } => e.to_string(),
            e => format!("{}: {e}", args.table.schema.path().display()),
        }
    }

    async fn query(args: &QueryArgs, options: FlatstreamOptions) -> Result<Status, Failure> {
        #[cfg(feature = "cluster")]
        {
            let config = crate::cluster::config(&args.cluster.trust)?;
            let workers = crate::cluster::workers(&args.cluster, &config)?;
            if !workers.is_empty() {
                return crate::cluster::query(args, options, config, workers).await;
            }
        }
        #[cfg(not(feature = "cluster"))]
        if !args.cluster.workers.is_empty() || std::env::var_os("FLATSTREAM_WORKERS").is_some() {
            return Err(crate::failure::without_cluster("query --workers"));
        }
        let ctx = SessionContext::new().enable_flatstream_url_table();
        ctx.set_flatstream_options(options).map_err(usage)?;
        let frame = ctx.sql(&args.sql).await.map_err(usage)?;
        if args.cluster.explain {
            let plan = frame.create_physical_plan().await.map_err(failure)?;
            print!("{}", displayable(plan.as_ref()).indent(true));
            return Ok(Status::Ok);
        }
        let schema: SchemaRef = frame.schema().inner().clone();
        if args.format == QueryFormat::Csv {
            check_flat(&schema)?;
        }
        // The bar follows the plan's scans, unless rows stream to the terminal it would use.
        let (task, plan) = (Arc::new(frame.task_ctx()), frame.create_physical_plan());
        let plan = plan.await.map_err(failure)?;
        let rows_shown = args.format != QueryFormat::Table && io::stdout().is_terminal();
        let progress = crate::scan_progress::watch("querying", &plan, rows_shown);
        let stream = execute_stream(plan, task).map_err(failure)?;
        print(args.format, schema, stream, Some(progress)).await
    }

    /// An error of the SQL or of its plan: the user's (status 2), unless it is about the data.
    fn usage(e: DataFusionError) -> Failure {
        let mut failure = failure(e);
        if failure.message.contains("field named _offset") {
            failure
                .message
                .push_str(" (the column _offset is there with --offset-column)");
        }
        failure
    }
}
