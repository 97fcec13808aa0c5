import { pino } from 'pino';
import { REDACT_PATHS } from '../../dist/runtime/service/logging.js';
const N = 100000;
const dest = pino.destination({ dest: '/dev/null', sync: true });
const variants = {
  redact: pino({ level: 'info', base: { service: 'x' }, redact: { paths: [...REDACT_PATHS], censor: 'X' }, timestamp: pino.stdTimeFunctions.isoTime }, dest),
  noredact: pino({ level: 'info', base: { service: 'x' }, timestamp: pino.stdTimeFunctions.isoTime }, dest),
};
for (let k=0;k<3;k++){
 for (const [name, l] of Object.entries(variants)) {
  let t = performance.now();
  for (let i=0;i<N;i++) { l.child({ executionId: 'abc-def', pipeline: 'order-flow' }); }
  const tc = (performance.now()-t)*1000/N; t = performance.now();
  for (let i=0;i<N;i++) { l.info({ executionId: 'abc-def', pipeline: 'order-flow', outcome: 'success', durationMs: 1 }, 'execution finished'); }
  const ti = (performance.now()-t)*1000/N;
  console.log(`${name} child ${tc.toFixed(2)} info ${ti.toFixed(2)}`);
 }
}
