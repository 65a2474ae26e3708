"""Safety: which calls are sensitive, the gate that holds them, pending questions, the audit.

- policy: the agent's rules (sensitive domains, cover classes, entities, exemptions, PIN).
- tool_review: what a Home Assistant LLM API tool will do, judged before it runs.
- gate: decide(call) -> allow | hold | refuse (home/runner.py runs what it allows); who is a
  person; the person's answer to a held call.
- pending: held actions waiting for the same user's yes, and how a reply is read.
- audit: every proposed, confirmed, refused, expired, executed or failed action.
"""
