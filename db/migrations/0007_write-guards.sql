-- One guarded write batch (functions/use-cases/store/guarded-write.ts): a write's preconditions are
-- checked in SQL inside its one non-interactive transaction. tether_assert raises unless `ok` is
-- true (null counts as false), which rolls the whole batch back; `payload` names the API error
-- (JSON: code, message, field) that the Worker answers with. SQLSTATE TT001 marks it as ours.
CREATE OR REPLACE FUNCTION tether_assert(ok boolean, payload text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'TT001', MESSAGE = 'tether_assert', DETAIL = payload;
  END IF;
  RETURN true;
END
$$;
