"""evalcore-tables: CSV / TSV and Parquet files and pandas / polars / Arrow tables as evalcore records.

Importing the package imports neither pandas nor pyarrow: the readers do, when a run uses them.
"""

__version__ = "0.1.0"
