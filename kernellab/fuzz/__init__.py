"""Fuzzing kernellab (issue 16): differential runs of random well-typed kernels on every target
against a numpy reference of the fuzzer's own (:mod:`.generator`, :mod:`.program`,
:mod:`.reference`, :mod:`.runner`, :mod:`.shrinker`, :mod:`.differential`), and malformed kernels
and launches that must end in user-facing errors (:mod:`.malformed`).  ``python -m
kernellab.fuzz --help`` runs either for as long as asked; ``tests/fuzz`` runs fixed seeds."""
