"""Safety: which calls are sensitive, the gate that holds them, pending questions, the audit.

- policy: the agent's rules (sensitive domains, cover classes, entities, exemptions, PIN), the
  entities the options name stored by entity registry id.
- tool_review: what a Home Assistant LLM API tool will do, judged before it runs.
- gate: decide(call) -> allow | hold | refuse (home/runner.py runs what it allows); who is a
  person; the person's answer to a held call.
- confirmation: held actions waiting for the same user's yes, how a reply is read (yes, no,
  something else; a PIN in any form), the PIN guard.
- audit: every proposed, confirmed, refused, expired, executed or failed action.
- local_intents: the repair issue when a pipeline's built-in intents bypass the questions.
- migration: safety options of earlier versions, brought to what they mean now.
"""
