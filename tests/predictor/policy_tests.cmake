# predictor_policy_tests: written by the policy helper.
