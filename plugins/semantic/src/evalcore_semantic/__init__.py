"""evalcore-semantic: embedding similarity, BERTScore and intra-list diversity on local or remote models."""
