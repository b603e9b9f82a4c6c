INSERT INTO probe.nothing VALUES (1);
