"""Support shared by the tests and the developer scripts (never shipped).

* `hass_runner.async_home_assistant()` boots Home Assistant in a temporary config directory.
* `demo_home.async_setup_demo_home()` adds Home Assistant's demo devices, exposed to Assist.
* `synthetic.async_setup_synthetic_home()` adds a generated home of N exposed entities.
* `home_builder` adds fixture homes (testing/fixture_home/), areas and exposure for both.
* `agent.async_local_agent()` loads this integration with a model file (or `stand_in.py`).
* `turn.async_run_turn()` sends one sentence and records what the turn did;
  `printing.format_turn()` renders that record.
* `models.resolve_model()` and `tokenizer.Tokenizer` pick and tokenize with GGUF files.
* `model_files` writes the test models; `speed_twin` the BotPsy-sized twin.
* `server_process`, `llama_server`, `real_llama_server`, `fake_openai`, `hub_server`: servers
  the tests and benchmarks talk to.
"""
