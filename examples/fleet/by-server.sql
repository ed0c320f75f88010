-- Findings per server and rule, from the JSON Lines of `mcpdbg check --format jsonl`
-- (a finding's server is in its file's session record: join on path and session).
WITH records AS (
  SELECT * FROM read_json(getvariable('findings'), format = 'newline_delimited', sample_size = -1)
),
sessions AS (
  SELECT path, session, coalesce(name, server.name, '(unknown)') AS server
  FROM records WHERE type = 'session'
)
SELECT s.server, f.rule, count(*) AS findings
FROM records f JOIN sessions s USING (path, session)
WHERE f.type = 'finding'
GROUP BY ALL
ORDER BY findings DESC, s.server, f.rule;
