// The market an instance is launched in: RunInstances' `InstanceMarketOptions` (API_InstanceMarketOptionsRequest.html,
// API_SpotMarketOptions.html), read and checked as EC2 checks it, and what DescribeInstances then reports of a spot
// instance (`instanceLifecycle` spot and the `spotInstanceRequestId` of the request RunInstances made for it).
import { EmulatorError, type WireCall } from '../emulator/index.js';
import { paramsOf, type Query } from './dialect.js';
import type { SpotMarket } from './resources.js';

const PREFIX = 'InstanceMarketOptions';
const MARKET_TYPES = ['spot', 'capacity-block', 'interruptible-capacity-reservation'] as const;

/** Whether a request asks for spot capacity: RunInstances with `InstanceMarketOptions.MarketType=spot`. */
export function asksForSpot(call: WireCall): boolean {
  return paramsOf(call).get(`${PREFIX}.MarketType`) === 'spot';
}

function invalid(name: string, value: string, valid: readonly string[]): EmulatorError {
  return new EmulatorError(400, 'InvalidParameterValue', `Value (${value}) for parameter ${name} is invalid. Valid values: ${valid.join(', ')}.`);
}

function oneOf<T extends string>(p: Query, name: string, valid: readonly T[], fallback: T): T {
  const value = p.get(name);
  if (value === null) return fallback;
  if (!(valid as readonly string[]).includes(value)) throw invalid(name, value, valid);
  return value as T;
}

/**
 * The spot market a RunInstances request asks for, or undefined for on-demand. The rules are the API reference's:
 * SpotOptions only with MarketType spot; SpotInstanceType one-time (default) or persistent, a persistent request only
 * with interruption behaviour stop or hibernate; InstanceInterruptionBehavior defaults to terminate; a MaxPrice above
 * USD 0.001. The sandbox has no Capacity Blocks or interruptible reservations, so those market types name none.
 */
export function spotMarketOf(p: Query, nextRequestId: () => string): SpotMarket | undefined {
  const keys = [...p.keys()].filter((k) => k.startsWith(`${PREFIX}.`));
  if (keys.length === 0) return undefined;
  const market = p.get(`${PREFIX}.MarketType`);
  if (market !== null && !(MARKET_TYPES as readonly string[]).includes(market)) throw invalid(`${PREFIX}.MarketType`, market, MARKET_TYPES);
  if (market !== 'spot') {
    if (keys.some((k) => k.startsWith(`${PREFIX}.SpotOptions.`)))
      throw new EmulatorError(400, 'InvalidParameterCombination', 'SpotOptions can only be specified when MarketType is spot.');
    if (market === null) return undefined;
    throw new EmulatorError(
      400,
      'InvalidParameterCombination',
      `MarketType ${market} needs a CapacityReservationSpecification that targets a reservation of that kind, and this account has none.`,
    );
  }
  const type = oneOf(p, `${PREFIX}.SpotOptions.SpotInstanceType`, ['one-time', 'persistent'] as const, 'one-time');
  const interruption = oneOf(p, `${PREFIX}.SpotOptions.InstanceInterruptionBehavior`, ['hibernate', 'stop', 'terminate'] as const, 'terminate');
  if (type === 'persistent' && interruption === 'terminate')
    throw new EmulatorError(
      400,
      'InvalidParameterCombination',
      'For RunInstances, persistent Spot Instance requests are only supported when the instance interruption behavior is either hibernate or stop.',
    );
  const maxPrice = p.get(`${PREFIX}.SpotOptions.MaxPrice`) ?? undefined;
  if (maxPrice !== undefined && !(Number(maxPrice) > 0.001))
    throw new EmulatorError(400, 'InvalidParameterValue', `The maximum price (${maxPrice}) must be more than USD $0.001.`);
  return { requestId: nextRequestId(), type, interruption, ...(maxPrice !== undefined ? { maxPrice } : {}) };
}
