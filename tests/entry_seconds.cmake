# Each ctest entry's measured time, in seconds: the longest of seven clean-clone runs of
# scripts/test.sh on the reference machine (2 cores, AMD EPYC Zen 4, 2026-11-29; the first built
# the images and Kubernetes cold, the fifth started integration_kube beside translation). Local
# suites run beside integration_kube, which can double them. ergobench_entry_timeouts() gives
# every entry a TIMEOUT of twice this (30 s at least, for process start-up on a loaded machine),
# so that a suite that grows fails in the change that grew it, and configure fails for an entry
# that is not here: measure it (ctest -R '^name$') and add it. Re-measure when a suite changes
# on purpose.
# The cluster's tests that hold the CPUs alone (cpu_lock.alone), their seconds summed: test_cluster's
# four (the 0a link rate 60-99 s, the slowed link 24, two link checks) and test_regression's (85).
# A local suite beside integration_kube may wait for each of them between its tests (72 s once).
set(ERGOBENCH_ALONE_SECONDS 250)
set(ERGOBENCH_ENTRY_SECONDS
  a_failure_outranks_a_skip                      0.01
  agent_test                                     9.21
  api_test                                       0.43
  base_test                                      6.19
  base_test_measure                              3.45
  benchmark_fuzzer_corpus                        0.03
  bleu_fuzzer_corpus                             0.04
  cli_test                                       0.42
  cpu_lock_orders_the_alone_and_the_sharers      1.92
  dataset_archive_fuzzer_corpus                  0.06
  docs_links_check_finds_broken_ones             0.04
  docs_links_resolve                             0.07
  energy_query_fuzzer_corpus                     0.03
  energy_test                                    0.31
  energy_test_measure                            0.66
  failures_close_the_report                      0.22
  http_request_fuzzer_corpus                     0.04
  integration_chart                              16.58
  integration_cli                                16.77
  integration_cluster                            71.25
  integration_cosmoflow                           470  # beside integration_kube, 2026-11-28 (270 s today)
  integration_energy                             13.31
  integration_failures                           27.69
  integration_images                             126.79
  integration_kube                               1620.42
  integration_language_model                     70  # killed at 68 s beside integration_kube, 2026-11-29 (34 s before)
  integration_local_run                          26.8
  integration_metrics                            28.42
  integration_repeats                            74.02
  integration_report                             27.91
  integration_resnet50                           178.59
  integration_sweeps                             131.36
  integration_training                           100.9
  integration_translation                        584.71
  kube_cluster_input                             0.39
  kube_test                                      0.58
  kube_test_measure                              0.01
  layering_agent_sees_no_operator                0.09
  layering_agent_sees_no_runner                  0.09
  layering_allowed_include                       2.67
  layering_analysis_sees_no_pricing              0.09
  layering_base_sees_no_api                      0.11
  layering_benchmark_controller_sees_no_sweep    0.1
  layering_cli_sees_no_operator                  0.1
  layering_cli_sees_no_runtime                   0.11
  layering_cluster_run_sees_no_operator          0.11
  layering_contract_sees_no_v1alpha1             0.1
  layering_controller_common_sees_no_controller  0.09
  layering_dataset_controller_sees_no_benchmark  0.09
  layering_energy_sees_no_runner                 0.09
  layering_energy_sees_no_v1alpha1               0.1
  layering_kube_client_sees_no_runtime           0.1
  layering_kube_sees_no_controller               0.1
  layering_launcher_sees_no_training             0.09
  layering_pricing_sees_no_analysis              0.08
  layering_runner_sees_no_kube                   0.89
  layering_sweep_controller_sees_no_benchmark    0.12
  layering_v1alpha1_sees_no_analysis             0.1
  layering_v1alpha1_sees_no_contract             0.09
  layering_v1alpha1_sees_no_pricing              0.08
  measure_label_check_finds_one                  0.04
  measure_tests_are_labelled                     0.18
  mlperf_log_fuzzer_corpus                       0.02
  mpi_communicator_test                          0.71
  no_regex_check_finds_one                       0.04
  no_regex_on_user_input                         0.07
  node_energy_report_fuzzer_corpus               0.02
  node_status_fuzzer_corpus                      0.03
  operator_test                                  1.24
  process_io_fuzzer_corpus                       0.03
  quantity_fuzzer_corpus                         0.02
  rank_zero_metrics_fuzzer_corpus                0.03
  runner_cuda_test                               0.48
  runner_cuda_test_measure                       0.21
  runner_test                                    9.41
  runner_test_measure                            6.59
  runner_torch_test                              52.91
  runner_torch_test_measure                      11.94
  skip_check_passes_a_clean_run                  0.05
  skip_fails_the_ci_check                        0.11
  skip_is_reported_by_gtest_main                 0.01
  skip_is_reported_by_run_suite                  0.14
  sweep_fuzzer_corpus                            0.03
  termination_message_fuzzer_corpus              0.02
  tfrecord_fuzzer_corpus                         0.04
  tokenizer_fuzzer_corpus                        0.04
  training_curve_fuzzer_corpus                   0.02
  unity_batches_share_no_local_name              2.12
  unity_names_self_test                          0.08
  vocabulary_fuzzer_corpus                       0.05
  watch_framing_fuzzer_corpus                    0.02
  wmt17_fuzzer_corpus                            0.05
  yaml_fuzzer_corpus                             0.01
)
