"""The metric core: pure functions over plain data, used alike by the TUI
panels, batch mode and exports.

Every statistic returns an :class:`Estimate` (or a small result dataclass of
them) that is either defined or explicitly undefined with a reason -- never
NaN. Heavy libraries (scipy, krippendorff, sentence-transformers/torch) are
imported inside the functions that need them, so importing this package is cheap.
"""

from .agreement import cohens_kappa, krippendorff_alpha, percent_agreement
from .calibration import (
    CalibrationReport,
    JudgePanelAgreement,
    KSweep,
    ReliabilityBin,
    binary_outcomes,
    brier_score,
    calibration,
    judge_panel_agreement,
    reliability_bins,
    sigmoid_k_sweep,
)
from .correlation import pearson_r, spearman_rho
from .decision_quality import (
    CONCERN_TAXONOMIES,
    EXPECTED_PERSPECTIVES,
    BaselineComparison,
    anchoring_elimination,
    blind_spot_coverage,
    compare_sequential_parallel,
    concerns_for,
    decision_quality_score,
    perspective_diversity,
)
from .descriptive import mean_ci, mean_difference_ci
from .effect_sizes import cohens_d, cohens_d_paired, mann_whitney_u
from .embeddings import (
    DEFAULT_MODEL,
    Embedder,
    EmbeddingCache,
    InMemoryEmbeddingCache,
    cosine_similarity,
    cosine_similarity_matrix,
    text_hash,
)
from .estimate import Estimate, to_jsonable, undefined
from .icc import ICC_FORMS, icc

__all__ = [
    "CONCERN_TAXONOMIES", "DEFAULT_MODEL", "EXPECTED_PERSPECTIVES", "ICC_FORMS",
    "BaselineComparison", "CalibrationReport", "Embedder", "EmbeddingCache", "Estimate",
    "InMemoryEmbeddingCache", "JudgePanelAgreement", "KSweep", "ReliabilityBin",
    "anchoring_elimination", "binary_outcomes", "blind_spot_coverage", "brier_score",
    "calibration", "cohens_d", "cohens_d_paired", "cohens_kappa", "compare_sequential_parallel",
    "concerns_for", "cosine_similarity", "cosine_similarity_matrix", "decision_quality_score",
    "icc", "judge_panel_agreement",
    "krippendorff_alpha", "mann_whitney_u", "mean_ci", "mean_difference_ci", "pearson_r",
    "percent_agreement", "perspective_diversity", "reliability_bins", "sigmoid_k_sweep",
    "spearman_rho", "text_hash", "to_jsonable", "undefined",
]
