/**
 * A query whose text differs by engine (it takes pieces from the dialect), built once per engine
 * on first use: a module constant, so the reader finds its prepared statement by the same string.
 */
import { dialectFor, type Dialect, type Engine } from './dialect.js';

export type EngineSql = (engine: Engine) => string;

export function engineSql(build: (dialect: Dialect) => string): EngineSql {
  const texts = new Map<Engine, string>();
  return (engine) => {
    let text = texts.get(engine);
    if (text === undefined) texts.set(engine, (text = build(dialectFor(engine))));
    return text;
  };
}
