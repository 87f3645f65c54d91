// Part 1 of 4 of the day's chaos window (seeds.ts): every fourth hybrid and CMK seed from the window's seed number 1, in a
// process of its own.
import { describeChaosPart } from './seeds.js';

describeChaosPart(1);
