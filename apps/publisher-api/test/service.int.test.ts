import { describeServiceBasics } from '@cw/testing';
import { createApp } from '../src/app';

describeServiceBasics('publisher-api', createApp);
