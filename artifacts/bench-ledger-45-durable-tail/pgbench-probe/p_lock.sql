SELECT pg_advisory_xact_lock(hashtext('veil.ledger.write.' || current_schema()));
