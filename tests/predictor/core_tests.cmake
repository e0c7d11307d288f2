# predictor_core_tests: written by the core helper.
