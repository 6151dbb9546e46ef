"""Test code of the built-in plugins: tiny checkpoints with random weights, generated benchmark data,
and the conformance example of every built-in type.

Registered through the ``vlc_harness_testing`` entry point (``builtin =
"vlc_harness_builtins.testing.examples"``), exactly as a third party registers its own: the
conformance checks load it, ``vlc-harness run`` never does, and no plugin module imports it
(the ``no-test-code`` import contract in pyproject.toml). The plugin manager's walk over ``vlc_harness_builtins``
leaves this package out.

* :mod:`.examples`: the ``conformance_example`` hook, answering for the built-in types.
* :mod:`.model_examples`: each model type's example, by type name.
* :mod:`.benchmark_examples`: the ``@benchmark_example`` decorator and the examples it collected.
* ``tiny_*``: checkpoint builders (open_clip, transformers contrastive, generative and image-blind models).
* ``data_*``: generated benchmark data in each benchmark's upstream layout, with stand-in images, and
  the benchmark's conformance example (``@benchmark_example("<type>")``): a new benchmark's test data
  and example are one file.
"""
