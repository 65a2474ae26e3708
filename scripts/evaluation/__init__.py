"""scripts/eval: score the Local Agent on datasets of spoken requests in a real Home Assistant.

* `dataset` reads homes in the home-assistant-datasets layout (`_fixtures.yaml` + task files).
* `home` builds a home in Home Assistant from its fixtures (testing/fixture_home/ entities,
  through testing/home_builder.py; timers), applies a test's setup and resets it
  between sentences.
* `reference` is the reference policy: a stand-in model that writes the ideal Qwen3.5 tool
  calls for each test, so a run measures the integration alone.
* `runner` sends each sentence (and "yes" to a confirmation) and `scoring` judges the result;
  `report` sums it up as JSON and a table; `cli` is the command line.
"""
